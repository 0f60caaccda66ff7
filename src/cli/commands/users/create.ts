import { Flags } from '@oclif/core';
import { hashPassword } from '../../../auth/password.ts';
import { WardError } from '../../../errors/ward-error.ts';
import { assertRoleName } from '../../../auth/names.ts';
import { createUser } from '../../../auth/users.ts';
import { AuthCommand, passwordStdinFlag, usernameArg } from '../../auth-command.ts';

interface Created {
  id: number;
  username: string;
  roles: string[];
  hasPassword: boolean;
}

export default class UsersCreate extends AuthCommand {
  static override description =
    'Create a user. Without --password-stdin it is a service account: it cannot sign in, only use API tokens';
  static override examples = [
    'printf \'%s\' "$PASSWORD" | <%= config.bin %> users create alice --role admin --password-stdin',
    '<%= config.bin %> users create sync_agent --role sync_agent',
    'printf \'%s\' "$TEMPORARY" | <%= config.bin %> users create bob --role receptionist --password-stdin --temporary',
  ];
  static override enableJsonFlag = true;
  static override args = { username: usernameArg };
  static override flags = {
    role: Flags.string({
      description: 'a role to grant (repeatable)',
      multiple: true,
      default: [],
      parse: async (input) => assertRoleName(input),
    }),
    'password-stdin': passwordStdinFlag,
    temporary: Flags.boolean({
      description: 'the password is temporary: the user must choose their own at first sign-in',
      default: false,
    }),
  };

  async run(): Promise<Created> {
    const { args, flags } = await this.parse(UsersCreate);
    if (flags.temporary && !flags['password-stdin'])
      throw new WardError(
        'missing_password',
        '--temporary is about a password, and none is given',
        `pipe the temporary password in: printf '%s' "$TEMPORARY" | ward users create ${args.username} --password-stdin --temporary`,
        { exitCode: 2 },
      );
    const knex = await this.authDb();
    const roles = [...new Set(flags.role)].sort();
    await this.assertKnownRoles(roles);
    const password = flags['password-stdin'] ? await this.readPassword(args.username) : null;
    const passwordHash = password === null ? null : await hashPassword(password);
    const id = await this.operatorActing(knex).transaction((trx) =>
      createUser(trx, {
        username: args.username,
        passwordHash,
        roles,
        mustChangePassword: flags.temporary,
      }),
    );
    const held = roles.length === 0 ? 'no role' : `role${roles.length === 1 ? '' : 's'} ${roles.join(', ')}`;
    this.log(`Created user ${args.username} with ${held}.`);
    if (flags.temporary) this.log(`${args.username} must choose their own password at first sign-in.`);
    if (password === null)
      this.log(
        `${args.username} has no password, so it cannot sign in; give it an API token (ward tokens create --user ${args.username}) or a password (ward users set-password ${args.username} --password-stdin).`,
      );
    return { id, username: args.username, roles, hasPassword: password !== null };
  }
}
