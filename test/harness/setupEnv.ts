import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// n8n-core reads its settings folder when first imported; keep it away from the user's own.
process.env.N8N_USER_FOLDER ??= mkdtempSync(join(tmpdir(), 'n8n-mailing-platform-test-'));
