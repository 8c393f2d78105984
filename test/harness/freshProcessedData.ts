import { processedData } from './processedData';

// Each test starts with an empty deduplication history, as on a fresh n8n database.
beforeEach(() => processedData.clear());
