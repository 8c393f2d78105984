import { storeCallsEnded } from './storeCallsOfProcesses';
import { processedData } from './processedData';

// Each test starts with an empty deduplication history, as on a fresh n8n database, once the
// store calls the last test's executions left going in each process (a key's confirmation
// rounds) have ended.
beforeEach(async () => {
	await storeCallsEnded();
	processedData.clear();
}, 30_000);
