import { keyStoreIdle } from '../../nodes/MailingPlatform/helpers/keyStore';
import { processedData } from './processedData';

// Each test starts with an empty deduplication history, as on a fresh n8n database, once the
// store calls the last test's executions left going (a key's confirmation rounds) have ended.
beforeEach(async () => {
	await keyStoreIdle();
	processedData.clear();
}, 30_000);
