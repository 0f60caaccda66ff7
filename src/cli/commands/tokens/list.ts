import { Flags } from '@oclif/core';
import { listApiTokens, type TokenSummary } from '../../../auth/api-tokens.ts';
import { assertUsername } from '../../../auth/names.ts';
import { requireUser } from '../../../auth/users.ts';
import { AuthCommand } from '../../auth-command.ts';
import { table } from '../../render.ts';

export default class TokensList extends AuthCommand {
  static override description = 'List API tokens (never the tokens themselves: Ward does not have them)';
  static override examples = [
    '<%= config.bin %> tokens list',
    '<%= config.bin %> tokens list --user sync_agent --json',
  ];
  static override enableJsonFlag = true;
  static override flags = {
    user: Flags.string({
      description: "only this user's tokens",
      parse: async (input) => assertUsername(input),
    }),
  };

  async run(): Promise<TokenSummary[]> {
    const { flags } = await this.parse(TokensList);
    const knex = await this.authDb();
    const userId = flags.user === undefined ? undefined : (await requireUser(knex, flags.user)).id;
    const tokens = await listApiTokens(knex, { userId });
    this.log(renderTokens(tokens));
    return tokens;
  }
}

const day = (date: Date | null): string => (date === null ? '-' : date.toISOString().slice(0, 10));

export function renderTokens(tokens: TokenSummary[]): string {
  if (tokens.length === 0) return 'No API tokens.';
  return table(
    ['ID', 'USER', 'ROLE', 'NAME', 'STATUS', 'EXPIRES', 'LAST USED'],
    tokens.map((token) => [
      String(token.id),
      token.user,
      token.role ?? '(all)',
      token.name ?? '-',
      token.status,
      token.expiresAt === null ? 'never' : day(token.expiresAt),
      day(token.lastUsedAt),
    ]),
  );
}
