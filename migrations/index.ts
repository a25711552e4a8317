/** Every migration, in order. A new migration is added here as well as in this folder. */
export const MIGRATIONS: Function[] = [];
