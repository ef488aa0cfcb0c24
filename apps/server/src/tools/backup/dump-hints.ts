/**
 * PostgreSQL and MySQL have their own consistent dump tools; the gateway prints the command for
 * its SQL_DSN (password masked: the tool asks for it or reads PGPASSWORD / MYSQL_PWD).
 */
export function dumpCommand(sqlDsn: string, stamp: string): { dump: string; restore: string } {
  const url = new URL(sqlDsn);
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  const user = decodeURIComponent(url.username);
  const secret = url.password ? '***' : '';
  if (url.protocol === 'mysql:') {
    const file = `modelgate-${stamp}.sql`;
    const connection = `-h ${url.hostname} -P ${url.port || '3306'} -u ${user}`;
    return {
      dump: `${secret ? `MYSQL_PWD='${secret}' ` : ''}mysqldump --single-transaction --routines --no-tablespaces ${connection} ${database} > ${file}`,
      restore: `${secret ? `MYSQL_PWD='${secret}' ` : ''}mysql ${connection} <empty database> < ${file}`,
    };
  }
  const file = `modelgate-${stamp}.dump`;
  const connection = `-h ${url.hostname} -p ${url.port || '5432'} -U ${user}`;
  return {
    dump: `${secret ? `PGPASSWORD='${secret}' ` : ''}pg_dump --format=custom --file=${file} ${connection} -d ${database}`,
    restore: `${secret ? `PGPASSWORD='${secret}' ` : ''}pg_restore --no-owner ${connection} -d <empty database> ${file}`,
  };
}
