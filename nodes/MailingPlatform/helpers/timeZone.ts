import type { IExecuteFunctions, IPollFunctions } from 'n8n-workflow';

import { isTimeZone } from '../../../credentials/MailingPlatformApi.credentials';
import { credentialOf } from '../transport';
import { InputProblem } from './values';

/**
 * The platform account's time zone, in which the service writes and reads every wall-clock
 * time: the credential's Platform Time Zone, or the workflow's zone when that is empty.
 */
export async function platformTimeZone(this: IExecuteFunctions | IPollFunctions): Promise<string> {
	const { data } = await credentialOf(this);
	const configured = String(data?.platformTimeZone ?? '').trim();
	if (configured === '') return this.getTimezone();
	if (!isTimeZone(configured)) {
		throw new InputProblem(
			`Platform Time Zone "${configured}" in the credential is not a time zone`,
			'Enter the account’s zone as an IANA name such as Europe/Berlin (it is shown in the platform’s account settings), or leave it empty to use the workflow’s timezone.',
		);
	}
	return configured;
}
