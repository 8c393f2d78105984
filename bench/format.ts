/** How the bench's tables write numbers. */
export const count = (value: number) => Math.round(value).toLocaleString('en-US');
export const fixed = (digits: number) => (value: number) => value.toFixed(digits);
export const ms = (value: number) => `${value.toFixed(0)} ms`;
export const tenthsMs = (value: number) => `${value.toFixed(1)} ms`;
export const hundredthsMs = (value: number) => `${value.toFixed(2)} ms`;
export const seconds = (value: number) => `${(value / 1000).toFixed(2)} s`;
export const megabytes = (value: number) => `${(value / 1_000_000).toFixed(1)} MB`;
