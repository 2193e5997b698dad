/** Raised for an unreadable or invalid configuration; the CLI prints it and exits 1. */
export class ConfigError extends Error {}
