import { listUsers, type UserSummary } from '../../../auth/users.ts';
import { AuthCommand } from '../../auth-command.ts';
import { table } from '../../render.ts';

export default class UsersList extends AuthCommand {
  static override description = 'List users with their roles';
  static override examples = ['<%= config.bin %> users list', '<%= config.bin %> users list --json'];
  static override enableJsonFlag = true;

  async run(): Promise<UserSummary[]> {
    const users = await listUsers(await this.authDb());
    this.log(renderUsers(users));
    return users;
  }
}

export function renderUsers(users: UserSummary[]): string {
  if (users.length === 0)
    return 'No users yet: create one with `ward users create <username> --role admin --password-stdin`.';
  return table(
    ['USERNAME', 'ROLES', 'SIGN-IN', 'CREATED'],
    users.map((user) => [
      user.username,
      user.roles.length === 0 ? '-' : user.roles.join(','),
      user.disabled ? 'disabled' : user.hasPassword ? 'password' : 'tokens only',
      user.createdAt.toISOString().slice(0, 10),
    ]),
  );
}
