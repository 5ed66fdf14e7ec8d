export { diagnoseConnection } from './diagnose.js';
export type { DoctorOptions, DoctorReport, DoctorStep } from './types.js';
