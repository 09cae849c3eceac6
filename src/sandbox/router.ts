/**
 * A small router: method + path pattern → handler.
 *
 * Patterns are relative to the base path, segments are literals or `:name`
 * (`/customers/:customerId/verify-email`). A trailing slash is ignored. `match` tells apart
 * "no such path" (404 NOT_FOUND) from "path exists, other method" (405 METHOD_NOT_ALLOWED with
 * `Allow`). Routes are platform-authenticated unless added with `{ auth: false }` (only the
 * sandbox's stand-in identity provider is public).
 */
import type { Reply, RequestContext } from './context.js';

export type Handler = (ctx: RequestContext) => Promise<Reply> | Reply;

export interface RouteOptions {
  /** Require HTTP Basic platform credentials (default true). */
  auth?: boolean;
  /** Accept an `application/x-www-form-urlencoded` body (default: JSON only). */
  form?: boolean;
}

export interface Route {
  method: string;
  pattern: string;
  segments: string[];
  handler: Handler;
  auth: boolean;
  form: boolean;
}

export type RouteMatch =
  | { kind: 'route'; route: Route; params: Record<string, string> }
  | { kind: 'method'; allow: string[] }
  | { kind: 'none' };

export function splitPath(path: string): string[] {
  return path.split('/').filter((s) => s !== '');
}

export class Router {
  private readonly routes: Route[] = [];

  add(method: string, pattern: string, handler: Handler, options: RouteOptions = {}): this {
    this.routes.push({
      method: method.toUpperCase(),
      pattern,
      segments: splitPath(pattern),
      handler,
      auth: options.auth ?? true,
      form: options.form ?? false,
    });
    return this;
  }

  get(pattern: string, handler: Handler, options?: RouteOptions): this {
    return this.add('GET', pattern, handler, options);
  }
  post(pattern: string, handler: Handler, options?: RouteOptions): this {
    return this.add('POST', pattern, handler, options);
  }
  patch(pattern: string, handler: Handler, options?: RouteOptions): this {
    return this.add('PATCH', pattern, handler, options);
  }
  delete(pattern: string, handler: Handler, options?: RouteOptions): this {
    return this.add('DELETE', pattern, handler, options);
  }

  /** Matches decoded path segments. Literal segments win over parameters at the same position. */
  match(method: string, segments: readonly string[]): RouteMatch {
    const allow: string[] = [];
    let best: { route: Route; params: Record<string, string>; literals: number } | undefined;
    for (const route of this.routes) {
      if (route.segments.length !== segments.length) continue;
      const params: Record<string, string> = {};
      let literals = 0;
      let ok = true;
      for (let i = 0; i < segments.length; i += 1) {
        const pattern = route.segments[i] as string;
        const value = segments[i] as string;
        if (pattern.startsWith(':')) params[pattern.slice(1)] = value;
        else if (pattern === value) literals += 1;
        else {
          ok = false;
          break;
        }
      }
      if (!ok) continue;
      if (route.method !== method) {
        if (!allow.includes(route.method)) allow.push(route.method);
        continue;
      }
      if (best === undefined || literals > best.literals) best = { route, params, literals };
    }
    if (best !== undefined) return { kind: 'route', route: best.route, params: best.params };
    if (allow.length > 0) return { kind: 'method', allow };
    return { kind: 'none' };
  }
}
