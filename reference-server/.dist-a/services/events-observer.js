export const noopObserver = { leaseExpired: () => { }, deadLettered: () => { } };
//# sourceMappingURL=events-observer.js.map