// A starter bot in Java: plays a seeded random legal action in every game the referee offers
// (Azul, Summer Pavilion, Alhambra, 5211). The JDK only (a small JSON reader and writer below).
//
// The protocol (docs/protocol.md): one JSON object per line on stdin, one per line on stdout.
//   referee: start -> bot: ready      (once per game; the process plays several games in a row)
//   referee: act   -> bot: action     (one per decision; answer with the same id)
//   referee: end                      (the game is over: no answer)
//   referee: quit                     (exit)
// stdout is for protocol lines only: log to stderr (the referee keeps it in a per-seat log).
//
// Build: javac -d classes Main.java        Run: arena match --game azul "java -cp classes Main" random
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

public class Main {
    static final String NAME = "starter-java";

    // ---- your strategy goes here ------------------------------------------------------------
    // `observation` and the entries of `legal` are the JSON of docs/games/<game>.md as Maps,
    // Lists, Strings, Longs, Doubles, Booleans and nulls. `start` is the start message (game,
    // seat, players, options, time). Return an index into `legal`.
    static int choose(Map<String, Object> start, Object observation, List<Object> legal, Random rng) {
        return rng.nextInt(legal.size());
    }
    // ------------------------------------------------------------------------------------------

    public static void main(String[] args) throws IOException {
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        warmUp();
        Map<String, Object> start = null;
        Random rng = new Random(0);
        for (String line; (line = in.readLine()) != null; ) {
            Map<String, Object> message = Json.object(Json.parse(line));
            switch ((String) message.get("type")) {
                case "start":
                    start = message;
                    rng = new Random(((Number) message.get("seed")).longValue());
                    System.err.println(NAME + ": game " + message.get("game") + ", seat " + message.get("seat"));
                    send(out, Map.of("type", "ready", "name", NAME));
                    break;
                case "act": {
                    List<Object> legal = Json.list(message.get("legal"));
                    Object chosen = legal.get(choose(start, message.get("observation"), legal, rng));
                    Map<String, Object> answer = new LinkedHashMap<>();
                    answer.put("type", "action");
                    answer.put("id", message.get("id"));
                    answer.put("action", chosen); // the action object itself ({"index": k} works too)
                    send(out, answer);
                    break;
                }
                case "quit":
                    return;
                default: // "end": nothing to answer
            }
        }
    }

    static void send(PrintStream out, Object message) {
        out.print(Json.write(message));
        out.print('\n');
        out.flush();
    }

    // The JVM loads classes and compiles on first use: do that before `ready` (startup_ms is
    // for it), not in the first decision, whose clock is short.
    static void warmUp() {
        String sample = "{\"type\":\"act\",\"id\":1,\"observation\":{\"a\":[1,2.5,\"x\\n\",true,null]},"
                + "\"legal\":[{\"type\":\"take\",\"cards\":[{\"currency\":1,\"value\":2}]}],\"clock\":{}}";
        for (int i = 0; i < 2000; i++) {
            Json.write(Json.parse(sample));
        }
    }

    /** Just enough JSON for the protocol: parse to Map/List/String/Long/Double/Boolean/null. */
    static final class Json {
        private final String text;
        private int at;

        private Json(String text) {
            this.text = text;
        }

        static Object parse(String text) {
            Json json = new Json(text);
            Object value = json.value();
            json.space();
            if (json.at != text.length()) throw new IllegalArgumentException("trailing text at " + json.at);
            return value;
        }

        @SuppressWarnings("unchecked")
        static Map<String, Object> object(Object value) {
            return (Map<String, Object>) value;
        }

        @SuppressWarnings("unchecked")
        static List<Object> list(Object value) {
            return (List<Object>) value;
        }

        private void space() {
            while (at < text.length() && Character.isWhitespace(text.charAt(at))) at++;
        }

        private Object value() {
            space();
            char c = text.charAt(at);
            if (c == '{') {
                Map<String, Object> map = new LinkedHashMap<>();
                at++;
                space();
                if (text.charAt(at) == '}') { at++; return map; }
                while (true) {
                    space();
                    String key = string();
                    space();
                    at++; // ':'
                    map.put(key, value());
                    space();
                    if (text.charAt(at++) == '}') return map; // else ','
                }
            }
            if (c == '[') {
                List<Object> list = new ArrayList<>();
                at++;
                space();
                if (text.charAt(at) == ']') { at++; return list; }
                while (true) {
                    list.add(value());
                    space();
                    if (text.charAt(at++) == ']') return list; // else ','
                }
            }
            if (c == '"') return string();
            if (text.startsWith("true", at)) { at += 4; return Boolean.TRUE; }
            if (text.startsWith("false", at)) { at += 5; return Boolean.FALSE; }
            if (text.startsWith("null", at)) { at += 4; return null; }
            int from = at;
            while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) at++;
            String number = text.substring(from, at);
            if (number.matches("-?\\d+")) return Long.parseLong(number);
            return Double.parseDouble(number);
        }

        private String string() {
            StringBuilder s = new StringBuilder();
            at++; // '"'
            while (true) {
                char c = text.charAt(at++);
                if (c == '"') return s.toString();
                if (c != '\\') { s.append(c); continue; }
                char e = text.charAt(at++);
                switch (e) {
                    case 'n': s.append('\n'); break;
                    case 't': s.append('\t'); break;
                    case 'r': s.append('\r'); break;
                    case 'b': s.append('\b'); break;
                    case 'f': s.append('\f'); break;
                    case 'u': s.append((char) Integer.parseInt(text.substring(at, at + 4), 16)); at += 4; break;
                    default: s.append(e); // \" \\ \/
                }
            }
        }

        static String write(Object value) {
            StringBuilder s = new StringBuilder();
            write(value, s);
            return s.toString();
        }

        private static void write(Object value, StringBuilder s) {
            if (value == null) {
                s.append("null");
            } else if (value instanceof String) {
                s.append('"');
                for (char c : ((String) value).toCharArray()) {
                    if (c == '"' || c == '\\') s.append('\\').append(c);
                    else if (c < 0x20) s.append(String.format("\\u%04x", (int) c));
                    else s.append(c);
                }
                s.append('"');
            } else if (value instanceof Map) {
                s.append('{');
                boolean first = true;
                for (Map.Entry<?, ?> entry : ((Map<?, ?>) value).entrySet()) {
                    if (!first) s.append(',');
                    first = false;
                    write(entry.getKey(), s);
                    s.append(':');
                    write(entry.getValue(), s);
                }
                s.append('}');
            } else if (value instanceof List) {
                s.append('[');
                boolean first = true;
                for (Object item : (List<?>) value) {
                    if (!first) s.append(',');
                    first = false;
                    write(item, s);
                }
                s.append(']');
            } else {
                s.append(value); // Long, Double, Boolean
            }
        }
    }
}
