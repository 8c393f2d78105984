import type { ServiceDouble } from '../double/server';

/** Report › Get Blocks with `extra` parameters. */
export const getBlocks = (extra: Record<string, unknown> = {}) => ({ resource: 'report', operation: 'getBlocks', ...extra });

/** The double's requests for pages of blocks (not for a count). */
export const blockRequests = (double: ServiceDouble) =>
	double.requestsTo('reports/blocks').filter((request) => !request.rawPath.endsWith('count'));

/** Every value of the query parameter `name`, in order. */
export const queryValues = (query: Array<[string, string]>, name: string) =>
	query.filter(([key]) => key === name).map(([, value]) => value);
