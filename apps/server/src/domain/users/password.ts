import bcrypt from 'bcryptjs';

const COST = 10;

export const hashPassword = (plain: string): Promise<string> => bcrypt.hash(plain, COST);

/** Constant-time comparison of a plain password with a stored bcrypt hash; false for an empty hash. */
export const verifyPassword = (plain: string, hash: string): Promise<boolean> => (hash ? bcrypt.compare(plain, hash) : Promise.resolve(false));
