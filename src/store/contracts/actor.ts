/** Who made a write, for the audit log: `cli`, `key:NAME` for an admin key, or `account:EMAIL` for a person. */
export type Actor = string;
