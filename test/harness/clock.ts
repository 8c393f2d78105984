/**
 * n8n's clock as the trigger reads it (`Date.now()`), set by the test: polls happen at chosen
 * moments, apart from the times the double records its blocks at. `useN8nClock` installs it
 * for each test of a file.
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

/** An n8n clock installed before each test of the file and the real one restored after it. */
export function useN8nClock(): N8nClock {
	const clock = new N8nClock();
	beforeEach(() => clock.install());
	afterEach(() => clock.restore());
	return clock;
}
