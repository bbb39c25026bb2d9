export {};
//# sourceMappingURL=people.js.map