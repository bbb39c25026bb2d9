export {};
//# sourceMappingURL=deliveries.js.map