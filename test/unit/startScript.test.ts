import { createServer } from 'node:net';

import { editorPort } from '../../scripts/editor';
import { packageOfNpmLine } from '../../scripts/installProgress';
import { refuseTakenPort } from '../../scripts/portCheck';

describe('npm start', () => {
	it('takes the port from --port, --port=, N8N_PORT, else 5678, and refuses what is not a port', () => {
		expect(editorPort([], {})).toBe(5678);
		expect(editorPort([], { N8N_PORT: '5690' })).toBe(5690);
		expect(editorPort(['--port', '5691'], { N8N_PORT: '5690' })).toBe(5691);
		expect(editorPort(['--port=5692'], {})).toBe(5692);
		expect(() => editorPort(['--port', 'abc'], {})).toThrow('The port "abc" is not a port number');
	});

	it('says a taken port is taken and names a free one, before starting anything', async () => {
		// A program that is not n8n: it hangs up on every connection.
		const server = createServer((socket) => socket.destroy());
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		const { port } = server.address() as { port: number };
		try {
			await expect(refuseTakenPort(port)).rejects.toThrow(
				new RegExp(`^Port ${port} is already in use by another program\\. .*npm start -- --port \\d+`),
			);
		} finally {
			await new Promise((resolve) => server.close(resolve));
		}
		await expect(refuseTakenPort(port)).resolves.toBeUndefined();
	});

	it("reads the package of npm's http log lines for the install progress", () => {
		expect(packageOfNpmLine('npm http fetch GET 200 https://registry.example/@nodable%2fentities 124ms (cache updated)')).toEqual({
			name: '@nodable/entities',
			kind: 'lookup',
		});
		expect(packageOfNpmLine('npm http fetch GET 200 https://registry.example/n8n/-/n8n-2.8.4.tgz 900ms')).toEqual({
			name: 'n8n',
			kind: 'unpack',
		});
		expect(
			packageOfNpmLine('npm http cache @nodable/entities@https://registry.example/@nodable/entities/-/entities-3.1.0.tgz 0ms (cache hit)'),
		).toEqual({ name: '@nodable/entities', kind: 'unpack' });
		expect(packageOfNpmLine('npm warn deprecated x@1')).toBeUndefined();
	});
});
