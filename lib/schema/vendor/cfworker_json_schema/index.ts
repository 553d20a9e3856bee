export * from './deep-compare-strict.ts';
export * from './dereference.ts';
export * from './format.ts';
export * from './pointer.ts';
export * from './types.ts';
export * from './ucs2-length.ts';
export * from './validate.ts';
export * from './validator.ts';
