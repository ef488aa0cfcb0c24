/** User roles as stored in users.role (new-api numbering). */
export const Role = {
  Guest: 0,
  Common: 1,
  Admin: 10,
  Root: 100,
} as const;
export type RoleValue = (typeof Role)[keyof typeof Role];

export const isAdmin = (role: number | undefined | null): boolean => (role ?? 0) >= Role.Admin;
export const isRoot = (role: number | undefined | null): boolean => (role ?? 0) >= Role.Root;

/** users.status */
export const UserStatus = { Enabled: 1, Disabled: 2 } as const;

/** tokens.status */
export const TokenStatus = { Enabled: 1, Disabled: 2, Expired: 3, Exhausted: 4 } as const;

/** channels.status */
export const ChannelStatus = { Unknown: 0, Enabled: 1, ManuallyDisabled: 2, AutoDisabled: 3 } as const;

/** redemptions.status */
export const RedemptionStatus = { Unused: 1, Disabled: 2, Used: 3 } as const;

/** logs.type */
export const LogType = { Unknown: 0, TopUp: 1, Consume: 2, Manage: 3, System: 4, Error: 5 } as const;
export type LogTypeValue = (typeof LogType)[keyof typeof LogType];
