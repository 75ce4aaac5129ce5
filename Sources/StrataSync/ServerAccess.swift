#if Sync
    @_spi(StrataSync) import Strata

    /// The server's side of access: the role clients log in through, what it may do, and the
    /// row-level security that decides who sees which objects and changes (Docs/Sync.md, "Who may see
    /// what"). Made by the first client that connects with the right to create (the database's owner,
    /// an administrator); clients of other roles only use it.
    enum ServerAccess {
        /// The role whose members may sync: an administrator grants it to each user's role.
        static let clientRole = "strata_sync_client"

        /// Whether the current role is in one of `team`s (the policies' test, run as the querying role).
        private static let inMyTeams = "IN (SELECT m.team FROM strata.members AS m WHERE m.member = current_user)"

        /// Who may see a change row: everyone when it has no audience (a type without rules), else its
        /// owner and the members of its team.
        private static let changeAudience =
            "(audience_owner IS NULL AND audience_team IS NULL) OR audience_owner = current_user OR audience_team \(inMyTeams)"

        /// Whether the client role exists (it is made only for per-user access: `ServerConnection.prepare`).
        static let clientRoleExists = "SELECT EXISTS (SELECT FROM pg_roles WHERE rolname = '\(clientRole)')"

        /// Whether the client role has its privileges on the protocol's tables.
        static let clientRoleGranted = "SELECT has_table_privilege('\(clientRole)', 'strata.changes', 'INSERT')"

        /// Makes the client role: needs CREATEROLE (or a superuser).
        static let createClientRole = "CREATE ROLE \(clientRole) NOLOGIN"

        /// What the client role may do with the protocol's tables and functions (run by their owner).
        static let clientRoleGrants: [String] = [
            "GRANT USAGE ON SCHEMA strata TO \(clientRole)",
            "GRANT SELECT ON strata.sync_meta, strata.types, strata.access_rules, strata.members TO \(clientRole)",
            "GRANT SELECT, UPDATE ON strata.sequence TO \(clientRole)",
            "GRANT SELECT, INSERT, UPDATE ON strata.clients TO \(clientRole)",
            "GRANT SELECT, INSERT ON strata.changes TO \(clientRole)",
            "GRANT SELECT ON strata.change_log TO \(clientRole)",
            "GRANT EXECUTE ON FUNCTION strata.trim_history() TO \(clientRole)",
            "GRANT EXECUTE ON FUNCTION strata.inaccessible_keys(text, text[]) TO \(clientRole)",
        ]

        /// The privileges of the client role on a type's table.
        static func typeGrant(_ type: String) -> String {
            "GRANT SELECT, INSERT, UPDATE, DELETE ON \(ServerSchema.table(type)) TO \(clientRole)"
        }

        /// Row-level security, the history's trimming and the audience checks: made with the protocol's
        /// tables by any role that may create in the database (no role is made here: without per-user
        /// access rules, the owner's role is all sync needs).
        static let statements: [String] = [
            // A client's row holds its position: only its own role may move it (another could make
            // the server skip the client's next pushes as already accepted).
            "ALTER TABLE strata.clients ENABLE ROW LEVEL SECURITY",
            policy(on: "strata.clients", "role = current_user"),
            "ALTER TABLE strata.members ENABLE ROW LEVEL SECURITY",
            policy(on: "strata.members", "member = current_user"),
            "ALTER TABLE strata.changes ENABLE ROW LEVEL SECURITY",
            policy(on: "strata.changes", changeAudience),
            // Drops the changes every client seen within the retention window has pulled (the
            // window: `strata.sync_meta`'s `retention`, an interval, 7 days by default); a client
            // behind `trimmed_through` starts over from the typed tables (`StoreSync.bootstrap`).
            """
            CREATE OR REPLACE FUNCTION strata.trim_history() RETURNS bigint
            LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $f$
            DECLARE
                retention interval;
                keep bigint;
                trimmed bigint;
            BEGIN
                retention := coalesce((SELECT value FROM strata.sync_meta WHERE key = 'retention'), '7 days')::interval;
                SELECT min(pulled_through) INTO keep FROM strata.clients WHERE last_seen > now() - retention;
                IF keep IS NULL THEN
                    SELECT last_seq INTO keep FROM strata.sequence WHERE id = 1;
                END IF;
                SELECT max(last_seq) INTO trimmed FROM strata.changes WHERE last_seq <= keep;
                IF trimmed IS NULL THEN
                    RETURN 0;
                END IF;
                INSERT INTO strata.sync_meta VALUES ('trimmed_through', trimmed::text)
                    ON CONFLICT (key) DO UPDATE SET value = greatest(strata.sync_meta.value::bigint, trimmed)::text;
                DELETE FROM strata.changes WHERE last_seq <= trimmed;
                RETURN trimmed;
            END $f$
            """,
            "REVOKE ALL ON FUNCTION strata.trim_history() FROM PUBLIC",
            // Which of `keys` name an object of `type_name` that exists and the session's role may not
            // see: a push asks before it writes, so that a refusal names the change (row-level
            // security alone would skip such an update or delete in silence).
            """
            CREATE OR REPLACE FUNCTION strata.inaccessible_keys(type text, keys text[]) RETURNS text[]
            LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $f$
            DECLARE
                rule strata.access_rules;
                hidden text[];
            BEGIN
                SELECT * INTO rule FROM strata.access_rules AS r WHERE r.type_name = type;
                IF NOT FOUND THEN RETURN '{}'; END IF;
                EXECUTE format(
                    'SELECT coalesce(array_agg(t.%1$I::text), ''{}'') FROM strata.%2$I AS t '
                    'WHERE t.%1$I = ANY ($1::%3$s[]) AND t.%4$I IS DISTINCT FROM session_user AND '
                    'NOT coalesce(%5$s IN (SELECT m.team FROM strata.members AS m WHERE m.member = session_user), false)',
                    rule.key_column, rule.type_name, rule.key_type, rule.owner_column,
                    CASE WHEN rule.team_column IS NULL THEN 'NULL::text' ELSE format('t.%I', rule.team_column) END)
                INTO hidden USING keys;
                RETURN hidden;
            END $f$
            """,
            "REVOKE ALL ON FUNCTION strata.inaccessible_keys(text, text[]) FROM PUBLIC",
            // Every change of a type with rules must be to an object of the row's audience as the
            // typed tables hold it when the push commits (an update or delete may name one no longer there:
            // it does nothing where it arrives): a client cannot send a change of an object it may not
            // write to those who hold it. A `moved` notice carries nothing: its readers ask the server
            // for the object as their role sees it (`ServerConnection.currentObjects`).
            """
            CREATE OR REPLACE FUNCTION strata.check_audience() RETURNS trigger
            LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $f$
            DECLARE
                rule strata.access_rules;
                refused bigint;
            BEGIN
                -- Each rule tested against the row's type names here: `WHERE r.type_name = ANY (...)`
                -- in the query made PostgreSQL sort the whole array (a push's thousands of names) to
                -- scan the rules' index, on every push, rules or none.
                FOR rule IN SELECT * FROM strata.access_rules LOOP
                    CONTINUE WHEN NOT rule.type_name = ANY (NEW.type_names);
                    EXECUTE format(
                        'SELECT count(*) FROM unnest($1, $2, $3) AS e(type_name, object_key, kind) '
                        'LEFT JOIN strata.%1$I AS t ON t.%2$I = %3$s WHERE e.type_name = $4 AND e.kind <> ''moved'' AND CASE '
                        'WHEN t.%2$I IS NULL THEN e.kind = ''insert'' '
                        'ELSE t.%4$I IS DISTINCT FROM $5 OR %5$s IS DISTINCT FROM $6 END',
                        rule.type_name, rule.key_column, replace(rule.key_expression, '$key', 'e.object_key'),
                        rule.owner_column,
                        CASE WHEN rule.team_column IS NULL THEN 'NULL::text' ELSE format('t.%I', rule.team_column) END)
                    INTO refused
                    USING NEW.type_names, NEW.object_keys, NEW.kinds, rule.type_name, NEW.audience_owner, NEW.audience_team;
                    IF refused > 0 THEN
                        RAISE EXCEPTION 'strata: % change(s) of % are not to objects of the audience (%, %)',
                            refused, rule.type_name, NEW.audience_owner, NEW.audience_team
                            USING ERRCODE = '42501';
                    END IF;
                END LOOP;
                RETURN NEW;
            END $f$
            """,
            // Checked at commit: a push writes its changes' rows first (holding the sequence, so that
            // pushes apply in the order of their numbers), then the typed tables.
            "DROP TRIGGER IF EXISTS strata_check_audience ON strata.changes",
            """
            CREATE CONSTRAINT TRIGGER strata_check_audience AFTER INSERT ON strata.changes
            DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION strata.check_audience()
            """,
        ]

        /// A policy for every command, made or replaced.
        private static func policy(on table: String, _ condition: String) -> String {
            """
            DO $$ BEGIN
                DROP POLICY IF EXISTS strata_access ON \(table);
                CREATE POLICY strata_access ON \(table) USING (\(condition)) WITH CHECK (\(condition));
            END $$
            """
        }

        /// What makes a type's table usable by clients: the client role's privileges (when there is
        /// one), and with a rule, row-level security by owner and team, and the rule as
        /// `strata.check_audience` reads it.
        static func typeStatements(
            _ type: SyncTypeSchema, rule: AccessRule?, keyTypes: [String: SyncType], grantsToClients: Bool
        ) -> [String] {
            let table = ServerSchema.table(type.name)
            var statements = grantsToClients ? [typeGrant(type.name)] : []
            guard let rule else { return statements }
            let owner = ServerSchema.quoted(rule.access.ownerProperty)
            let team = rule.access.teamProperty.map(ServerSchema.quoted) ?? "NULL::text"
            statements += [
                "ALTER TABLE \(table) ENABLE ROW LEVEL SECURITY",
                policy(on: table, "\(owner) = current_user OR \(team) \(inMyTeams)"),
            ]
            let key = type.properties[rule.keyIndex]
            let keyType = ServerSchema.sqlType(key.type, keyTypes: keyTypes)
            let values = [
                type.name, key.name, keyType, ServerSchema.keyExpression(key.type), rule.access.ownerProperty,
            ].map(literal)
            statements.append(
                """
                INSERT INTO strata.access_rules VALUES (\(values.joined(separator: ", ")), \
                \(rule.access.teamProperty.map(literal) ?? "NULL")) ON CONFLICT DO NOTHING
                """)
            return statements
        }

        private static func literal(_ text: String) -> String {
            "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
        }
    }
#endif
