import { grantRole, requireUser } from '../../../auth/users.ts';
import { AuthCommand, roleArg, usernameArg } from '../../auth-command.ts';

export default class UsersGrant extends AuthCommand {
  static override description = 'Give a user a role; running backends apply it from the next request';
  static override examples = ['<%= config.bin %> users grant carol migration_operator'];
  static override enableJsonFlag = true;
  static override args = { username: usernameArg, role: roleArg };

  async run(): Promise<{ username: string; role: string; changed: boolean }> {
    const { args } = await this.parse(UsersGrant);
    const knex = await this.authDb();
    const user = await requireUser(knex, args.username);
    await this.assertKnownRoles([args.role]);
    const changed = await this.operatorActing(knex).transaction((trx) => grantRole(trx, user.id, args.role));
    this.log(
      changed
        ? `${args.username} now has the role ${args.role}.`
        : `${args.username} already has the role ${args.role}; nothing changed.`,
    );
    return { username: args.username, role: args.role, changed };
  }
}
