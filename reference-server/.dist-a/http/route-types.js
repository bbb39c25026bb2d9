export {};
//# sourceMappingURL=route-types.js.map