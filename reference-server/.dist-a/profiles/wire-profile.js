export {};
//# sourceMappingURL=wire-profile.js.map