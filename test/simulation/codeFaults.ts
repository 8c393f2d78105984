/**
 * Faults of the sender's own code a case may draw: each method below throws, or rejects its
 * promise, at the calls the case names, while the case's faults strike.
 */
import { AccountSender } from '../../nodes/MailingPlatform/actions/transaction/accountSender';
import { KeyClaims } from '../../nodes/MailingPlatform/actions/transaction/deduplication';
import { SendJob } from '../../nodes/MailingPlatform/actions/transaction/sendJob';
import { AccountGate } from '../../nodes/MailingPlatform/transport/accountGate';
import type { CodeFault } from './model';

/**
 * Methods of the sender's own code a case may make fail, each a position a fault of this code can
 * strike: a method that returns a promise rejects it, as an async one would, the others throw.
 */
const FAULT_TARGETS: ReadonlyArray<[string, object, string, 'throws' | 'rejects']> = [
	['AccountGate.takeStart', AccountGate.prototype, 'takeStart', 'throws'],
	['AccountGate.answered', AccountGate.prototype, 'answered', 'throws'],
	['SendJob.isWhole', SendJob.prototype, 'isWhole', 'throws'],
	['SendJob.choose', SendJob.prototype, 'choose', 'throws'],
	['SendJob.post', SendJob.prototype, 'post', 'throws'],
	['SendJob.reported', SendJob.prototype, 'reported', 'throws'],
	['SendJob.returnToWaiting', SendJob.prototype, 'returnToWaiting', 'rejects'],
	['KeyClaims.claim', KeyClaims.prototype, 'claim', 'rejects'],
	['KeyClaims.release', KeyClaims.prototype, 'release', 'rejects'],
	['KeyClaims.settleNow', KeyClaims.prototype, 'settleNow', 'rejects'],
	['AccountSender.answerFailure', AccountSender.prototype, 'answerFailure', 'rejects'],
	['AccountGate.heldBackSince', AccountGate.prototype, 'heldBackSince', 'throws'],
];

export const FAULT_METHODS = FAULT_TARGETS.map(([name]) => name);

/** A fault that struck: the method, its call, and when. */
export interface FiredFault {
	name: string;
	call: number;
	atMs: number;
}

/** Makes the methods fail where `codeFaults` say, noting each that struck in `fired`; answers how to restore them. */
export function installCodeFaults(codeFaults: readonly CodeFault[], faultsStrike: () => boolean, fired: FiredFault[]): () => void {
	const calls = new Map<string, number>();
	const restores: Array<() => void> = [];
	for (const [name, prototype, method, fails] of FAULT_TARGETS) {
		const strikes = codeFaults.filter((fault) => fault.method === name).map((fault) => fault.call);
		if (strikes.length === 0) continue;
		const host = prototype as { [method: string]: (...args: unknown[]) => unknown };
		const original = host[method];
		host[method] = function (this: unknown, ...args: unknown[]) {
			const call = (calls.get(name) ?? 0) + 1;
			calls.set(name, call);
			if (faultsStrike() && strikes.includes(call)) {
				fired.push({ name, call, atMs: Date.now() });
				const fault = new Error(`simulated fault in ${name} (call ${call})`);
				if (fails === 'rejects') return Promise.reject(fault);
				throw fault;
			}
			return original.apply(this, args);
		};
		restores.push(() => (host[method] = original));
	}
	return () => restores.forEach((restore) => restore());
}
