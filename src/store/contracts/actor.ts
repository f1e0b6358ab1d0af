/** Who made a write, for the audit log: `cli`, or `key:NAME` for an admin key. */
export type Actor = string;
