import { requireUser, revokeRole } from '../../../auth/users.ts';
import { AuthCommand, roleArg, usernameArg } from '../../auth-command.ts';

export default class UsersRevoke extends AuthCommand {
  static override description =
    "Take a role from a user; running backends apply it from the next request, for the user's open sessions and tokens too";
  static override examples = ['<%= config.bin %> users revoke carol migration_operator'];
  static override enableJsonFlag = true;
  static override args = { username: usernameArg, role: roleArg };

  async run(): Promise<{ username: string; role: string; changed: boolean }> {
    const { args } = await this.parse(UsersRevoke);
    const knex = await this.authDb();
    const user = await requireUser(knex, args.username);
    const changed = await this.operatorActing(knex).transaction((trx) => revokeRole(trx, user.id, args.role));
    this.log(
      changed
        ? `${args.username} no longer has the role ${args.role}.`
        : `${args.username} does not have the role ${args.role}; nothing changed.`,
    );
    return { username: args.username, role: args.role, changed };
  }
}
