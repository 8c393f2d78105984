/**
 * n8n's clock as the trigger reads it (`Date.now()`), set by the test: polls happen at chosen
 * moments, apart from the times the double records its blocks at. `install` in beforeEach,
 * `restore` in afterEach.
 */
export class N8nClock {
	private nowMs = Date.now();

	private readonly realNow = Date.now;

	install(): void {
		this.nowMs = this.realNow.call(Date);
		Date.now = () => this.nowMs;
	}

	restore(): void {
		Date.now = this.realNow;
	}

	set(at: string | number): void {
		this.nowMs = typeof at === 'number' ? at : Date.parse(at);
	}

	advance(ms: number): void {
		this.nowMs += ms;
	}
}
