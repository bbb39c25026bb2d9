export {};
//# sourceMappingURL=agents.js.map