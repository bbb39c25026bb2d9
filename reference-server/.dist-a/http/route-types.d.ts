/**
 * Fastify route generics from the generated spec types: `CapRoute<"/events/{id}/renew", "post">` gives
 * the `Body`, `Querystring` and `Params` of that operation in spec/generated/cap-v1.openapi.yaml,
 * `AdminRoute<"/pods/{podId}", "get">` the same for kernel-admin.openapi.yaml (paths relative to the
 * prefix each surface is registered under). Types only: the requests are validated against the same
 * documents' JSON Schemas before a handler runs (request-checks.ts), so these types describe what a
 * handler receives, and a field renamed in TypeSpec fails to compile in every route that reads it.
 * Must never add run-time work: nothing here exists after compilation.
 */
import type { CAP_BASE_PATH } from "@commonly/cap-spec/constants";
import type { queryDefaults as AdminDefaults, paths as AdminPaths } from "@commonly/cap-spec/types/admin";
import type { queryDefaults as CapDefaults, paths as CapPaths } from "@commonly/cap-spec/types/cap";
type Method = "get" | "put" | "post" | "delete" | "patch";
type CapBase = typeof CAP_BASE_PATH;
/** The methods a path item of the generated `paths` defines (openapi-typescript marks the rest `never`). */
type MethodsOf<Item> = {
    [M in Method & keyof Item]: [NonNullable<Item[M]>] extends [never] ? never : M;
}[Method & keyof Item];
type JsonBody<Op> = Op extends {
    requestBody?: infer B;
} ? NonNullable<B> extends {
    content: {
        "application/json": infer J;
    };
} ? J : unknown : unknown;
type Part<Op, In extends "query" | "path"> = Op extends {
    parameters: {
        [K in In]?: infer P;
    };
} ? [NonNullable<P>] extends [never] ? unknown : NonNullable<P> : unknown;
/** Query parameters with a spec `default` are always set once the coercing validator has run. */
type Defaulted<Q, Keys> = [Keys] extends [never] ? Q : Q & {
    [K in Keys & keyof Q]-?: NonNullable<Q[K]>;
};
type DefaultsOf<Defaults, P, M> = P extends keyof Defaults ? M extends keyof Defaults[P] ? Defaults[P][M] : never : never;
type At<T, K> = K extends keyof T ? T[K] : never;
type RouteOf<Paths, Defaults, P, M> = {
    Body: JsonBody<NonNullable<At<At<Paths, P>, M>>>;
    Querystring: Defaulted<Part<NonNullable<At<At<Paths, P>, M>>, "query">, DefaultsOf<Defaults, P, M>>;
    Params: Part<NonNullable<At<At<Paths, P>, M>>, "path">;
};
/** CAP paths relative to the base path the CAP routes are registered under. */
type CapPath = keyof CapPaths extends infer K ? K extends `${CapBase}${infer Rest}` ? Rest extends "" ? never : Rest : never : never;
/** The RouteGeneric of one CAP operation, by its path under `/api/agents/runtime` and its method. */
export type CapRoute<P extends CapPath, M extends MethodsOf<At<CapPaths, `${CapBase}${P}`>>> = RouteOf<CapPaths, CapDefaults, `${CapBase}${P}`, M>;
/** Admin paths relative to `/api`, the prefix the admin routes are registered under. */
type AdminPath = keyof AdminPaths extends infer K ? (K extends `/api${infer Rest}` ? Rest : never) : never;
/** The RouteGeneric of one admin operation, by its path under `/api` and its method. */
export type AdminRoute<P extends AdminPath, M extends MethodsOf<At<AdminPaths, `/api${P}`>>> = RouteOf<AdminPaths, AdminDefaults, `/api${P}`, M>;
export {};
