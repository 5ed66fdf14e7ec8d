export type RuntimeName = 'deno' | 'bun' | 'workerd';
export function runtimeCacheDir(name: RuntimeName): string;
export const RUNTIMES: Record<RuntimeName, { spec: string; binary: string }>;
