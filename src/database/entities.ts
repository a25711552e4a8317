/** Every TypeORM entity (the app registers them per module; the CLI data source needs the list). */
export const ENTITIES: Function[] = [];
