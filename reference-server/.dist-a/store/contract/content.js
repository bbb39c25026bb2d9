export {};
//# sourceMappingURL=content.js.map