import { Flags } from '@oclif/core';
import { createApiToken, DEFAULT_TOKEN_LIFETIME } from '../../../auth/api-tokens.ts';
import { parseDuration } from '../../../auth/duration.ts';
import { assertRoleName, assertUsername } from '../../../auth/names.ts';
import { assertEnabled, requireUser, rolesOf } from '../../../auth/users.ts';
import { WardError } from '../../../errors/ward-error.ts';
import { AuthCommand } from '../../auth-command.ts';

interface CreatedToken {
  id: number;
  token: string;
  user: string;
  role: string | null;
  name: string | null;
  expiresAt: string | null;
}

export default class TokensCreate extends AuthCommand {
  static override description =
    'Create an API token and print it once (stdout); Ward keeps only its hash. Send it as Authorization: Bearer <token>';
  static override examples = [
    '<%= config.bin %> tokens create --user sync_agent --role sync_agent --name "sync agent, site A"',
    'TOKEN=$(<%= config.bin %> tokens create --user alice --expires-in 30d)',
  ];
  static override enableJsonFlag = true;
  static override flags = {
    user: Flags.string({
      description: 'the user the token acts for',
      required: true,
      parse: async (input) => assertUsername(input),
    }),
    role: Flags.string({
      description: 'act with this one role of the user only (service accounts such as the sync agent)',
      parse: async (input) => assertRoleName(input),
    }),
    name: Flags.string({ description: 'what the token is for, shown by `tokens list`' }),
    'expires-in': Flags.string({
      description: 'lifetime: 30m, 12h, 90d, 2w, or never',
      default: DEFAULT_TOKEN_LIFETIME,
    }),
  };

  async run(): Promise<CreatedToken> {
    const { flags } = await this.parse(TokensCreate);
    const lifetime = parseDuration(flags['expires-in']);
    const name = flags.name?.trim() || null;
    if (name !== null && name.length > 100)
      throw new WardError(
        'invalid_token_name',
        'the token name is longer than 100 characters',
        'give a shorter --name',
        { exitCode: 2 },
      );
    // `tokens list` prints names to a terminal: a newline or an escape sequence could forge its rows.
    if (name !== null && /\p{Cc}/u.test(name))
      throw new WardError(
        'invalid_token_name',
        'the token name contains a control character (a newline, a tab or an escape sequence)',
        'give a --name of printable characters',
        { exitCode: 2 },
      );
    const knex = await this.authDb();
    const user = await requireUser(knex, flags.user);
    assertEnabled(user);
    const role = flags.role ?? null;
    if (role !== null && !(await rolesOf(knex, user.id)).includes(role))
      throw new WardError(
        'role_not_held',
        `${flags.user} does not have the role ${role}, so a token scoped to it could do nothing`,
        `grant it first: ward users grant ${flags.user} ${role}`,
      );
    const expiresAt = lifetime === null ? null : new Date(Date.now() + lifetime);
    const { id, secret } = await this.operatorActing(knex).transaction((trx) =>
      createApiToken(trx, { userId: user.id, role, name, expiresAt }),
    );
    this.logToStderr(
      `Created token ${id} for ${flags.user}${role === null ? '' : ` (role ${role} only)`}, ${expiresAt === null ? 'never expiring' : `expiring ${expiresAt.toISOString()}`}.\nIt is shown once, below; Ward keeps only its hash. Revoke it with: ward tokens revoke ${id}`,
    );
    this.log(secret);
    return { id, token: secret, user: flags.user, role, name, expiresAt: expiresAt?.toISOString() ?? null };
  }
}
