import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Imported first: n8n-core reads its settings folder when it is first loaded.
process.env.N8N_USER_FOLDER ??= mkdtempSync(join(tmpdir(), 'n8n-mailing-platform-bench-'));
