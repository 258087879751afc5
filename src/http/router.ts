// Route table: static paths resolve with one Map lookup (the /authorize hot path); paths with
// :params match segment by segment. A path known under another method yields 405, not 404.
import type { HttpMethod, RouteDef } from './types.js';

interface ParamRoute {
  readonly segments: readonly string[];
  readonly route: RouteDef;
}

export type Match =
  | { readonly kind: 'found'; readonly route: RouteDef; readonly params: Record<string, string> }
  | { readonly kind: 'method_not_allowed'; readonly allow: readonly HttpMethod[] }
  | { readonly kind: 'not_found' };

const NO_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>;

export class Router {
  readonly #static = new Map<string, Map<HttpMethod, RouteDef>>();
  readonly #dynamic: ParamRoute[] = [];
  readonly routes: RouteDef[] = [];

  add(route: RouteDef): void {
    this.routes.push(route);
    if (!route.path.includes(':')) {
      let byMethod = this.#static.get(route.path);
      if (byMethod === undefined) {
        byMethod = new Map();
        this.#static.set(route.path, byMethod);
      }
      if (byMethod.has(route.method)) throw new Error(`duplicate route ${route.method} ${route.path}`);
      byMethod.set(route.method, route);
      return;
    }
    const segments = route.path.split('/');
    for (const other of this.#dynamic) {
      if (other.route.method === route.method && other.route.path === route.path) {
        throw new Error(`duplicate route ${route.method} ${route.path}`);
      }
    }
    this.#dynamic.push({ segments, route });
  }

  match(method: HttpMethod | string, path: string): Match {
    const normalised = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
    const byMethod = this.#static.get(normalised);
    if (byMethod !== undefined) {
      const route = byMethod.get(method as HttpMethod);
      if (route !== undefined) return { kind: 'found', route, params: NO_PARAMS };
    }
    const parts = normalised.split('/');
    const allow = new Set<HttpMethod>(byMethod === undefined ? [] : byMethod.keys());
    // Static segments beat params: /webhooks/events must not match /webhooks/:webhook_id.
    let best: { route: RouteDef; params: Record<string, string>; score: number } | null = null;
    for (const { segments, route } of this.#dynamic) {
      if (segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      let score = 0;
      let ok = true;
      for (let i = 0; i < segments.length; i++) {
        const seg = segments[i] as string;
        const part = parts[i] as string;
        if (seg.startsWith(':')) {
          if (part.length === 0) {
            ok = false;
            break;
          }
          params[seg.slice(1)] = safeDecode(part);
        } else if (seg === part) {
          score++;
        } else {
          ok = false;
          break;
        }
      }
      if (!ok) continue;
      if (route.method !== method) {
        allow.add(route.method);
        continue;
      }
      if (best === null || score > best.score) best = { route, params, score };
    }
    if (best !== null) return { kind: 'found', route: best.route, params: best.params };
    if (allow.size > 0) return { kind: 'method_not_allowed', allow: [...allow] };
    return { kind: 'not_found' };
  }
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
