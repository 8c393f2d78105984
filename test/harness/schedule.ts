import { DateTime } from 'luxon';
import type { INodeParameters } from 'n8n-workflow';

import { MAILINGS } from '../double/routes/mailings';

/** A wall-clock time `days` from now, as the date picker stores it (no offset). */
export function future(days: number, time: string, zone = 'Europe/Berlin'): { picker: string; date: string } {
	const date = DateTime.now().setZone(zone).plus({ days }).toFormat('yyyy-MM-dd');
	return { picker: `${date}T${time}:00`, date };
}

/** Mailing › Schedule of the double's regular mailing, with `parameters`. */
export function schedule(parameters: INodeParameters): INodeParameters {
	return { resource: 'mailing', operation: 'schedule', mailingId: MAILINGS.regular, ...parameters };
}
