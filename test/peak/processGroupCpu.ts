/**
 * CPU time of a process group from Linux's /proc: for every process in the group, the time its
 * threads ran in user and kernel mode, and that of its children it waited for (`utime`,
 * `stime`, `cutime`, `cstime` of /proc/<pid>/stat). `n8n start` leads its own group (see
 * scripts/processes.ts), so this is n8n with its task runner and anything else it started.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Linux reports those times in ticks of USER_HZ, which is 100 on its usual builds. */
const TICKS_PER_SECOND = 100;

/** The group's CPU time so far, in milliseconds; processes that ended and were not waited for are missing. */
export function processGroupCpuMs(groupId: number): number {
	let ticks = 0;
	for (const entry of readdirSync('/proc')) {
		if (!/^\d+$/.test(entry)) continue;
		let stat: string;
		try {
			stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
		} catch {
			continue; // ended meanwhile
		}
		// The fields after the command name, which is in parentheses and may hold spaces.
		const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
		// From the state field on: pgrp is the 3rd, utime to cstime the 12th to 15th.
		if (Number(fields[2]) !== groupId) continue;
		ticks += fields.slice(11, 15).reduce((sum, value) => sum + Number(value), 0);
	}
	return (ticks * 1000) / TICKS_PER_SECOND;
}
