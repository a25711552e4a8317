interface RouterLayer {
  route?: { path: string; methods: Record<string, boolean> };
  match(path: string): boolean;
}

/**
 * The methods the Express router serves on `path`: a non-empty list means an unknown
 * method on a known resource (405 with `Allow`) rather than an unknown resource (404).
 */
export function allowedMethods(expressApp: unknown, path: string): string[] {
  const stack = (expressApp as { router?: { stack?: RouterLayer[] } }).router?.stack ?? [];
  const methods = new Set<string>();
  for (const layer of stack) {
    // Wildcard routes are middleware mounted for every method, not resources.
    if (!layer.route || layer.route.path.includes('*') || !layer.match(path)) continue;
    for (const [method, enabled] of Object.entries(layer.route.methods)) {
      if (enabled && method !== '_all') methods.add(method.toUpperCase());
    }
  }
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort();
}
