#if Sync
    /// The server's side of objects' images (`_strata_image`, what a new client starts from): an update
    /// sends only the properties it changed (and, for a Map, the keys it set or removed), so the row's
    /// image is patched on the server the way its typed columns are, never replaced by one client's
    /// whole object (which would bring back the values other clients changed meanwhile).
    ///
    /// `strata.patched_image(image, patch)` is `ChangePayload.patched(_:with:)` in SQL: each property of
    /// the patch replaces the image's, a Map patch is applied to the image's Map (keys removed, then
    /// keys set; the keys kept in byte order). Payloads, Maps and Map patches are read as Strata writes
    /// them (`ChangePayload`, `MapFormat`, `MapPatch`: little-endian lengths, `0xFFFFFFFF` for null).
    /// A row without an image (none was ever written) keeps none.
    enum ServerImages {
        /// Whether the functions are there (a server made before them lacks them).
        static let present = "SELECT to_regprocedure('strata.patched_image(bytea,bytea)') IS NOT NULL"

        static let statements: [String] = [
            // An unsigned little-endian integer of 2 or 4 bytes at `place` (0-based). (Arithmetic, not
            // `|` and `<<`: SQL gives those one precedence.)
            """
            CREATE OR REPLACE FUNCTION strata.le_read(bytes bytea, place int, width int) RETURNS bigint
            LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $f$
                SELECT get_byte(bytes, place)::bigint + get_byte(bytes, place + 1)::bigint * 256
                    + CASE WHEN width = 2 THEN 0
                        ELSE get_byte(bytes, place + 2)::bigint * 65536 + get_byte(bytes, place + 3)::bigint * 16777216
                    END
            $f$
            """,
            // `value` as 2 or 4 little-endian bytes (two's complement for a negative one).
            """
            CREATE OR REPLACE FUNCTION strata.le_bytes(value bigint, width int) RETURNS bytea
            LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $f$
                SELECT substring(
                    set_byte(set_byte(set_byte(set_byte(decode('00000000', 'hex'),
                        0, (value & 255)::int), 1, ((value >> 8) & 255)::int),
                        2, ((value >> 16) & 255)::int), 3, ((value >> 24) & 255)::int)
                    FROM 1 FOR width)
            $f$
            """,
            // The elements of a list-format column (a Map: key, value, key, value…); null ones as NULL.
            """
            CREATE OR REPLACE FUNCTION strata.list_elements(list bytea) RETURNS bytea[]
            LANGUAGE plpgsql IMMUTABLE STRICT AS $f$
            DECLARE
                count bigint := strata.le_read(list, 0, 4);
                place int := 4;
                element bigint;
                elements bytea[] := '{}';
            BEGIN
                FOR i IN 1..count LOOP
                    element := strata.le_read(list, place, 4);
                    place := place + 4;
                    IF element = 4294967295 THEN
                        elements := array_append(elements, NULL::bytea);
                    ELSE
                        elements := array_append(elements, substring(list FROM place + 1 FOR element::int));
                        place := place + element::int;
                    END IF;
                END LOOP;
                RETURN elements;
            END $f$
            """,
            // A Map (NULL: empty) with a Map patch applied: per key, tag 0 removes it, 1 sets the value
            // that follows, 2 sets null.
            """
            CREATE OR REPLACE FUNCTION strata.patched_map(map bytea, patch bytea) RETURNS bytea
            LANGUAGE plpgsql IMMUTABLE AS $f$
            DECLARE
                keys bytea[] := '{}';
                vals bytea[] := '{}';
                parts bytea[];
                change bytea;
                found int;
                entry record;
                result bytea;
            BEGIN
                IF map IS NOT NULL THEN
                    parts := strata.list_elements(map);
                    FOR i IN 1..coalesce(array_length(parts, 1), 0) BY 2 LOOP
                        keys := array_append(keys, parts[i]);
                        vals := array_append(vals, parts[i + 1]);
                    END LOOP;
                END IF;
                parts := strata.list_elements(patch);
                FOR i IN 1..coalesce(array_length(parts, 1), 0) BY 2 LOOP
                    change := parts[i + 1];
                    found := array_position(keys, parts[i]);
                    IF get_byte(change, 0) = 0 THEN
                        IF found IS NOT NULL THEN
                            keys := keys[1:found - 1] || keys[found + 1:];
                            vals := vals[1:found - 1] || vals[found + 1:];
                        END IF;
                    ELSIF found IS NULL THEN
                        keys := array_append(keys, parts[i]);
                        vals := array_append(vals, CASE WHEN get_byte(change, 0) = 1 THEN substring(change FROM 2) END);
                    ELSE
                        vals[found] := CASE WHEN get_byte(change, 0) = 1 THEN substring(change FROM 2) END;
                    END IF;
                END LOOP;
                result := strata.le_bytes(2 * coalesce(array_length(keys, 1), 0), 4);
                FOR entry IN SELECT e.k, e.v FROM unnest(keys, vals) AS e(k, v) ORDER BY e.k LOOP
                    result := result || strata.le_bytes(length(entry.k), 4) || entry.k
                        || CASE WHEN entry.v IS NULL THEN decode('ffffffff', 'hex')
                            ELSE strata.le_bytes(length(entry.v), 4) || entry.v END;
                END LOOP;
                RETURN result;
            END $f$
            """,
            // An object's image with an update's payload applied (NULL when the row has no image). The
            // image's properties the update does not name are copied as they are (no decoding of their
            // values); those it names are replaced, a Map patch applied to the image's Map. Lengths are
            // read inline (`get_byte`): a call per number cost twice the whole update's time.
            """
            CREATE OR REPLACE FUNCTION strata.patched_image(image bytea, patch bytea) RETURNS bytea
            LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $f$
            DECLARE
                names bytea[] := '{}';
                pieces bytea[] := '{}';
                patches bytea[] := '{}';
                used boolean[] := '{}';
                count int;
                total int;
                place int := 2;
                name_length int;
                value_length bigint;
                size int;
                found int;
                extra int := 0;
                result bytea := ''::bytea;
            BEGIN
                IF patch IS NULL OR length(patch) < 2 THEN
                    RETURN image;
                END IF;
                IF image IS NULL THEN
                    RETURN NULL;
                END IF;
                -- The update's properties: each one's bytes as it stands in a payload, and its Map patch.
                count := get_byte(patch, 0) + get_byte(patch, 1) * 256;
                FOR i IN 1..count LOOP
                    name_length := get_byte(patch, place) + get_byte(patch, place + 1) * 256;
                    value_length := get_byte(patch, place + 2 + name_length)
                        + get_byte(patch, place + 3 + name_length) * 256
                        + get_byte(patch, place + 4 + name_length) * 65536
                        + get_byte(patch, place + 5 + name_length)::bigint * 16777216;
                    IF value_length >= 2147483648 THEN value_length := value_length - 4294967296; END IF;
                    size := CASE WHEN value_length = -1 THEN 0 WHEN value_length <= -2 THEN -2 - value_length
                        ELSE value_length END;
                    names := array_append(names, substring(patch FROM place + 3 FOR name_length));
                    pieces := array_append(pieces, substring(patch FROM place + 1 FOR 6 + name_length + size));
                    patches := array_append(patches,
                        CASE WHEN value_length <= -2 THEN substring(patch FROM place + 7 + name_length FOR size) END);
                    used := array_append(used, false);
                    place := place + 6 + name_length + size;
                END LOOP;
                -- The image's properties, each kept as it is or replaced.
                total := get_byte(image, 0) + get_byte(image, 1) * 256;
                place := 2;
                FOR i IN 1..total LOOP
                    name_length := get_byte(image, place) + get_byte(image, place + 1) * 256;
                    value_length := get_byte(image, place + 2 + name_length)
                        + get_byte(image, place + 3 + name_length) * 256
                        + get_byte(image, place + 4 + name_length) * 65536
                        + get_byte(image, place + 5 + name_length)::bigint * 16777216;
                    size := CASE WHEN value_length = 4294967295 THEN 0 WHEN value_length >= 2147483648
                        THEN 4294967294 - value_length ELSE value_length END;
                    found := array_position(names, substring(image FROM place + 3 FOR name_length));
                    IF found IS NULL THEN
                        result := result || substring(image FROM place + 1 FOR 6 + name_length + size);
                    ELSIF patches[found] IS NULL THEN
                        result := result || pieces[found];
                        used[found] := true;
                    ELSE
                        result := result || strata.payload_property(names[found], strata.patched_map(
                            CASE WHEN value_length < 2147483648 THEN substring(image FROM place + 7 + name_length FOR size) END,
                            patches[found]));
                        used[found] := true;
                    END IF;
                    place := place + 6 + name_length + size;
                END LOOP;
                -- The update's properties the image lacked.
                FOR i IN 1..count LOOP
                    CONTINUE WHEN used[i];
                    extra := extra + 1;
                    result := result || CASE WHEN patches[i] IS NULL THEN pieces[i]
                        ELSE strata.payload_property(names[i], strata.patched_map(NULL, patches[i])) END;
                END LOOP;
                RETURN strata.le_bytes(total + extra, 2) || result;
            END $f$
            """,
            // One property as a payload holds it: its name's length and name, its value's length and value.
            """
            CREATE OR REPLACE FUNCTION strata.payload_property(name bytea, value bytea) RETURNS bytea
            LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $f$
                SELECT strata.le_bytes(length(name), 2) || name
                    || CASE WHEN value IS NULL THEN decode('ffffffff', 'hex') ELSE strata.le_bytes(length(value), 4) || value END
            $f$
            """,
        ]
    }
#endif
