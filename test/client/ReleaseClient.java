// An analyst's BI tool reading a governed release over JDBC (pgjdbc, TCP,
// password authentication): typed rows, sums with their margins of error
// (dp.margin_of_error, dp.error_bar), costs, refusals, refreshes. run-jdbc.sh sets the release up as superuser and
// runs this class as the analyst; every check prints one TAP line.
//
// Usage: java ReleaseClient JDBC_URL USER PASSWORD RELEASE_TABLE RAW_TABLE TRUE_MARGINS DRAWS_LEFT
//   TRUE_MARGINS  the true county totals, "Alpha=20,Beta=55,..." (computed by the superuser)
//   DRAWS_LEFT    how many refreshes the budget still allows
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

public final class ReleaseClient {
    private static int passed = 0;
    private static int failed = 0;

    private static void check(String what, boolean condition) {
        if (condition) {
            passed++;
            System.out.println("ok - " + what);
        } else {
            failed++;
            System.out.println("not ok - " + what);
        }
    }

    private static void checkEquals(String what, Object got, Object expected) {
        boolean same = expected == null ? got == null : expected.equals(got);
        check(what, same);
        if (!same) {
            System.out.println("#   got:      " + got);
            System.out.println("#   expected: " + expected);
        }
    }

    /** The SQLSTATE a prepared statement fails with, or "ok". */
    private interface Binder {
        void bind(PreparedStatement statement) throws SQLException;
    }

    private static String sqlstateOf(Connection connection, String sql, Binder binder) {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            binder.bind(statement);
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    // drain
                }
            }
            return "ok";
        } catch (SQLException e) {
            System.out.println("#   " + e.getSQLState() + ": " + e.getMessage().split("\n")[0]);
            return e.getSQLState();
        }
    }

    /** The release's rows, "county|edu|n" in county, edu order, read with typed getters. */
    private static List<String> readRelease(PreparedStatement read) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (ResultSet result = read.executeQuery()) {
            while (result.next()) {
                rows.add(result.getString("county") + "|" + result.getString("edu") + "|" + result.getLong("n"));
            }
        }
        return rows;
    }

    /** Each group's margin of error at 95 %, checked typed (DOUBLE), positive and exact. */
    private static Map<String, Double> errorBars(Connection connection, String sql, String what) throws SQLException {
        Map<String, Double> moe = new TreeMap<>();
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setDouble(1, 0.95);
            statement.setDouble(2, 0.95);
            checkEquals("moe is float8 -> java.sql.Types.DOUBLE", statement.getMetaData().getColumnType(3), Types.DOUBLE);
            boolean sound = true;
            try (ResultSet result = statement.executeQuery()) {
                while (result.next()) {
                    double m = result.getDouble("moe");
                    sound &= m > 0 && !Double.isInfinite(m) && "exact".equals(result.getString("kind"));
                    moe.put(result.getString(1), m);
                }
            }
            check(what + ": " + moe.size() + " sums with a positive margin of error from an exact variance " + moe,
                  sound && moe.size() == 4);
        }
        return moe;
    }

    private static Map<String, Long> countyTotals(List<String> rows) {
        Map<String, Long> totals = new TreeMap<>();
        for (String row : rows) {
            String[] fields = row.split("\\|");
            totals.merge(fields[0], Long.parseLong(fields[2]), Long::sum);
        }
        return totals;
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 7) {
            System.err.println("usage: ReleaseClient URL USER PASSWORD RELEASE RAW_TABLE TRUE_MARGINS DRAWS_LEFT");
            System.exit(2);
        }
        String url = args[0];
        String release = args[3];
        String rawTable = args[4];
        Map<String, Long> trueMargins = new TreeMap<>();
        for (String margin : args[5].split(",")) {
            String[] kv = margin.split("=");
            trueMargins.put(kv[0], Long.parseLong(kv[1]));
        }
        int drawsLeft = Integer.parseInt(args[6]);

        Properties properties = new Properties();
        properties.setProperty("user", args[1]);
        properties.setProperty("password", args[2]);
        properties.setProperty("ApplicationName", "dp_test BI client");
        // Server-side prepared statements from the first execution, as a pooled BI tool ends up with.
        properties.setProperty("prepareThreshold", "1");

        try (Connection connection = DriverManager.getConnection(url, properties)) {
            check("connected over TCP as " + args[1] + " with a password", connection.isValid(5));
            try (Statement statement = connection.createStatement();
                 ResultSet who = statement.executeQuery("SELECT current_user, inet_server_addr() IS NOT NULL")) {
                who.next();
                checkEquals("the session runs as the analyst, over TCP (not a socket)",
                            who.getString(1) + "/" + who.getBoolean(2), args[1] + "/true");
            }

            // --- typed rows of the release, with a bind parameter --------------
            PreparedStatement read = connection.prepareStatement(
                "SELECT county, edu, n FROM " + release + " WHERE county = ANY (?) ORDER BY county, edu");
            read.setArray(1, connection.createArrayOf("text", trueMargins.keySet().toArray()));
            ResultSetMetaData meta = read.getMetaData();
            checkEquals("release has 3 columns", meta.getColumnCount(), 3);
            checkEquals("county is text -> java.sql.Types.VARCHAR",
                        meta.getColumnType(1) + "/" + meta.getColumnTypeName(1), Types.VARCHAR + "/text");
            checkEquals("n is bigint -> java.sql.Types.BIGINT",
                        meta.getColumnType(3) + "/" + meta.getColumnTypeName(3), Types.BIGINT + "/int8");
            List<String> first = readRelease(read);
            checkEquals("the release has 16 cells", first.size(), 16);
            checkEquals("county totals of the release equal the true margins", countyTotals(first), trueMargins);
            try (PreparedStatement one = connection.prepareStatement(
                     "SELECT count(*), sum(n) FROM " + release + " WHERE county = ? AND edu <> ?")) {
                one.setString(1, "Beta");
                one.setString(2, "no such level");
                try (ResultSet result = one.executeQuery()) {
                    result.next();
                    checkEquals("a bound county filter (Beta) gives 4 cells summing to its true total",
                                result.getLong(1) + "/" + result.getLong(2), "4/" + trueMargins.get("Beta"));
                }
            }
            checkEquals("re-reading returns the stored draw, not a fresh one", readRelease(read), first);

            // --- cost before spending ------------------------------------------
            PreparedStatement cost = connection.prepareStatement(
                "SELECT dataset, epsilon, epsilon_remaining, draws_remaining, last_drawn_at FROM dp.release_cost(?::regclass)");
            cost.setString(1, release);
            BigDecimal remainingBefore;
            try (ResultSet result = cost.executeQuery()) {
                check("dp.release_cost returns a row for the release", result.next());
                checkEquals("draws_remaining (getLong) is " + drawsLeft, result.getLong("draws_remaining"), (long) drawsLeft);
                remainingBefore = result.getBigDecimal("epsilon_remaining");
                check("epsilon_remaining is a numeric (getBigDecimal " + remainingBefore + ")",
                      remainingBefore != null && remainingBefore.signum() > 0);
                checkEquals("epsilon_remaining is typed NUMERIC",
                            result.getMetaData().getColumnType(3), Types.NUMERIC);
            }

            // --- database metadata for the dp functions -------------------------
            DatabaseMetaData database = connection.getMetaData();
            try (ResultSet functions = database.getFunctions(null, "dp", "release_cost")) {
                check("getFunctions finds dp.release_cost", functions.next()
                      && "release_cost".equals(functions.getString("FUNCTION_NAME"))
                      && "dp".equals(functions.getString("FUNCTION_SCHEM")));
            }
            try (ResultSet functions = database.getFunctions(null, "dp", "%")) {
                List<String> names = new ArrayList<>();
                while (functions.next()) {
                    names.add(functions.getString("FUNCTION_NAME"));
                }
                check("getFunctions(dp, %) lists privatize, refresh_release, release_cost (" + names.size() + " functions)",
                      names.contains("privatize") && names.contains("refresh_release") && names.contains("release_cost"));
            }
            try (ResultSet columns = database.getFunctionColumns(null, "dp", "release_cost", "%")) {
                String parameter = null;
                List<String> results = new ArrayList<>();
                while (columns.next()) {
                    int kind = columns.getInt("COLUMN_TYPE");
                    if (kind == DatabaseMetaData.functionColumnIn) {
                        parameter = columns.getString("COLUMN_NAME") + " " + columns.getString("TYPE_NAME");
                    } else {
                        results.add(columns.getString("COLUMN_NAME"));
                    }
                }
                checkEquals("getFunctionColumns: dp.release_cost takes one IN parameter, release regclass",
                            parameter, "release regclass");
                check("getFunctionColumns: it returns epsilon_remaining and draws_remaining " + results,
                      results.contains("epsilon_remaining") && results.contains("draws_remaining"));
            }

            // --- documented SQLSTATEs through prepared statements --------------
            String adHoc = "SELECT * FROM dp.privatize(?, ?, ?) AS t(k text, n bigint)";
            checkEquals("an unknown mechanism is 22023 invalid_parameter_value",
                        sqlstateOf(connection, adHoc, s -> {
                            s.setString(1, "SELECT 'a'::text, 3::bigint");
                            s.setDouble(2, 1.0);
                            s.setString(3, "integer_laplase");
                        }), "22023");
            checkEquals("epsilon above 100 is 22003 numeric_value_out_of_range",
                        sqlstateOf(connection, adHoc, s -> {
                            s.setString(1, "SELECT 'a'::text, 3::bigint");
                            s.setDouble(2, 1000.0);
                            s.setString(3, "integer_laplace");
                        }), "22003");
            checkEquals("a NULL epsilon is 22004 null_value_not_allowed",
                        sqlstateOf(connection, adHoc, s -> {
                            s.setString(1, "SELECT 'a'::text, 3::bigint");
                            s.setNull(2, Types.DOUBLE);
                            s.setString(3, "integer_laplace");
                        }), "22004");
            checkEquals("release_cost of a table that is no release is 42704",
                        sqlstateOf(connection, "SELECT * FROM dp.release_cost(?::regclass)",
                                   s -> s.setString(1, rawTable)), "42704");
            checkEquals("a crafted release argument is a name, never SQL (42602)",
                        sqlstateOf(connection, "SELECT * FROM dp.release_cost(?::regclass)",
                                   s -> s.setString(1, release + "; DELETE FROM dp.budgets")), "42602");
            checkEquals("a direct SELECT on the raw table is 42501",
                        sqlstateOf(connection, "SELECT count(*) FROM " + rawTable + " WHERE county = ?",
                                   s -> s.setString(1, "Beta")), "42501");
            checkEquals("dp.privatize over the raw table is 42501 too",
                        sqlstateOf(connection, adHoc, s -> {
                            s.setString(1, "SELECT county, count(*) FROM " + rawTable + " GROUP BY 1");
                            s.setDouble(2, 1.0);
                            s.setString(3, "integer_laplace");
                        }), "42501");
            checkEquals("the budgets catalog is not readable (42501)",
                        sqlstateOf(connection, "SELECT * FROM dp.budgets WHERE dataset = ?",
                                   s -> s.setString(1, "x")), "42501");
            check("the connection is still usable after the errors", connection.isValid(5));

            // --- a test seed is a secret -----------------------------------------
            checkEquals("current_setting('dp.seed') is refused (42501)",
                        sqlstateOf(connection, "SELECT current_setting(?)", s -> s.setString(1, "dp.seed")), "42501");
            try (PreparedStatement settings = connection.prepareStatement(
                     "SELECT count(*) FROM pg_settings WHERE name = ?")) {
                settings.setString(1, "dp.seed");
                try (ResultSet result = settings.executeQuery()) {
                    result.next();
                    checkEquals("pg_settings does not show dp.seed to the analyst", result.getLong(1), 0L);
                }
            }
            try (PreparedStatement settings = connection.prepareStatement(
                     "SELECT count(*) FROM pg_db_role_setting WHERE array_to_string(setconfig, ',') LIKE ?")) {
                settings.setString(1, "%dp.seed=%");
                try (ResultSet result = settings.executeQuery()) {
                    result.next();
                    checkEquals("no dp.seed is stored in pg_db_role_setting (which every role can read)",
                                result.getLong(1), 0L);
                }
            }

            // --- error bars beside the sums, as a BI tool asks for them ---------
            String byEdu = "SELECT edu, sum(n) AS n, dp.margin_of_error(r, ?) AS moe, "
                + "(dp.error_bar(r, ?)).variance_kind AS kind FROM " + release + " r GROUP BY edu ORDER BY edu";
            Map<String, Double> moeBefore = errorBars(connection, byEdu, "education levels");
            try (PreparedStatement counties = connection.prepareStatement(
                     "SELECT county, dp.margin_of_error(r, ?) FROM " + release + " r GROUP BY county ORDER BY county")) {
                counties.setDouble(1, 0.95);
                boolean allZero = true;
                int n = 0;
                try (ResultSet result = counties.executeQuery()) {
                    while (result.next()) {
                        n++;
                        allZero &= result.getDouble(2) == 0.0 && !result.wasNull();
                    }
                }
                check("a county's total is exact (its margin is kept): margin of error 0.0 for all " + n, allZero && n == 4);
            }
            try (PreparedStatement whole = connection.prepareStatement(
                     "SELECT (dp.error_bar(r, ?)).* FROM " + release + " r WHERE edu = ANY (?)")) {
                whole.setDouble(1, 0.9);
                whole.setArray(2, connection.createArrayOf("text", new String[] {"Low", "High"}));
                try (ResultSet result = whole.executeQuery()) {
                    ResultSetMetaData columns = result.getMetaData();
                    checkEquals("dp.error_bar's columns: cells BIGINT, variance DOUBLE, variance_kind VARCHAR",
                                columns.getColumnType(1) + "/" + columns.getColumnType(2) + "/" + columns.getColumnType(4),
                                Types.BIGINT + "/" + Types.DOUBLE + "/" + Types.VARCHAR);
                    result.next();
                    checkEquals("the sum of two levels has 8 cells", result.getLong("cells"), 8L);
                    check("its variance is known exactly (" + result.getDouble("variance") + ") and its caveat is NULL",
                          "exact".equals(result.getString("variance_kind"))
                          && result.getDouble("variance") == result.getDouble("variance_lower")
                          && result.getString("caveat") == null);
                    check("its margin of error is the exact quantile of the sum's law, with its method ("
                              + result.getString("margin_kind") + ", " + result.getString("method") + ")",
                          result.getDouble("margin_of_error") > 0 && "exact".equals(result.getString("margin_kind"))
                          && result.getString("method").startsWith("exact: the quantile of the sum's law"));
                }
            }
            try (PreparedStatement laws = connection.prepareStatement(
                     "SELECT noise_law->>'mechanism', key_columns FROM dp.release_laws WHERE release = ?::regclass")) {
                laws.setString(1, release);
                try (ResultSet result = laws.executeQuery()) {
                    check("dp.release_laws shows the analyst the law the error bars come from", result.next()
                          && "integer_laplace".equals(result.getString(1))
                          && "{county,edu}".equals(result.getString(2)));
                }
            }
            checkEquals("a confidence of 1.5 is 22023",
                        sqlstateOf(connection, "SELECT dp.margin_of_error(r, ?) FROM " + release + " r",
                                   s -> s.setDouble(1, 1.5)), "22023");
            checkEquals("error bars of the raw table are 42501 (it cannot be read)",
                        sqlstateOf(connection, "SELECT dp.margin_of_error(r, ?) FROM " + rawTable + " r",
                                   s -> s.setDouble(1, 0.95)), "42501");

            // --- spending the budget: refreshes until 53Z01 -------------------
            PreparedStatement refresh = connection.prepareStatement("SELECT dp.refresh_release(?::regclass)");
            refresh.setString(1, release);
            int drawn = 0;
            String refusal = null;
            String hint = null;
            List<String> lastDrawn = first;
            List<java.sql.Timestamp> drawnAt = new ArrayList<>();
            for (int attempt = 0; attempt < drawsLeft + 3 && refusal == null; attempt++) {
                try (ResultSet result = refresh.executeQuery()) {
                    result.next();
                    long draw = result.getLong(1);
                    if (draw > 0) {
                        drawn++;
                    }
                    lastDrawn = readRelease(read);
                    try (ResultSet costAfter = cost.executeQuery()) {
                        costAfter.next();
                        drawnAt.add(costAfter.getTimestamp("last_drawn_at"));
                    }
                } catch (SQLException e) {
                    refusal = e.getSQLState();
                    if (e instanceof org.postgresql.util.PSQLException
                            && ((org.postgresql.util.PSQLException) e).getServerErrorMessage() != null) {
                        hint = ((org.postgresql.util.PSQLException) e).getServerErrorMessage().getHint();
                    }
                    System.out.println("#   refused after " + drawn + " draws: " + e.getMessage().split("\n")[0]);
                }
            }
            checkEquals("exactly " + drawsLeft + " refreshes succeeded through the prepared statement", drawn, drawsLeft);
            checkEquals("the next one failed with SQLSTATE 53Z01", refusal, "53Z01");
            check("the refusal carries a hint (" + hint + ")", hint != null && !hint.isEmpty());
            boolean increasing = drawnAt.size() == drawn;
            for (int i = 1; i < drawnAt.size(); i++) {
                increasing &= drawnAt.get(i) != null && drawnAt.get(i).after(drawnAt.get(i - 1));
            }
            check("each refresh was a new draw: last_drawn_at (getTimestamp) advanced every time", increasing);
            List<String> afterRefusal = readRelease(read);
            checkEquals("after the refusal the last stored release is still readable, unchanged",
                        afterRefusal, lastDrawn);
            checkEquals("and still keeps the true margins", countyTotals(afterRefusal), trueMargins);
            try (ResultSet result = cost.executeQuery()) {
                result.next();
                checkEquals("release_cost now shows 0 draws left", result.getLong("draws_remaining"), 0L);
            }
            // The last draw has the same law (same mechanism, scale and cells): the same error bars.
            checkEquals("after the refreshes the error bars are the latest draw's, equal to the first's",
                        errorBars(connection, byEdu, "education levels, last draw"), moeBefore);
        }
        System.out.println("# ReleaseClient: " + passed + " passed, " + failed + " failed");
        System.exit(failed == 0 ? 0 : 1);
    }
}
