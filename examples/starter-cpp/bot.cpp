// A starter bot in C++17: plays a seeded random legal action in every game the referee offers
// (Azul, 5211, ...). One file, the standard library only:
//
//     g++ -std=c++17 -O2 -o bot bot.cpp
//
// The protocol (docs/protocol.md): one JSON object per line on stdin, one per line on stdout.
//   referee: start -> bot: ready      (once per game; the process plays several games in a row)
//   referee: act   -> bot: action     (one per decision; answer with the same id)
//   referee: end                      (the game is over: no answer)
//   referee: quit                     (exit)
// stdout is for protocol lines only: log to std::cerr (the referee keeps it in a per-seat log).

#include <cstdint>
#include <iostream>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

// ---- a tiny JSON reader -------------------------------------------------------------------------
// Enough for the referee's messages: objects, arrays, strings (with escapes), numbers, true,
// false, null. A number keeps its text, so that a 64-bit seed loses no digit.

struct Json {
    enum Kind { Null, Bool, Number, String, Array, Object } kind = Null;
    bool boolean = false;
    std::string text;                    // a String's value, or a Number's digits as written
    std::vector<Json> items;             // an Array's elements
    std::map<std::string, Json> fields;  // an Object's fields

    // The field `key` of an object (a null value when absent: fields may be added later).
    const Json& operator[](const std::string& key) const {
        static const Json missing;
        auto found = fields.find(key);
        return found == fields.end() ? missing : found->second;
    }
    long long integer() const { return std::stoll(text); }
    double number() const { return std::stod(text); }
};

class JsonParser {
public:
    explicit JsonParser(const std::string& text) : s_(text) {}

    Json parse() {
        Json value = parseValue();
        skipSpace();
        if (pos_ != s_.size()) fail("trailing characters");
        return value;
    }

private:
    const std::string& s_;
    size_t pos_ = 0;

    [[noreturn]] void fail(const std::string& what) const {
        throw std::runtime_error("bad JSON at byte " + std::to_string(pos_) + ": " + what);
    }
    void skipSpace() {
        while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' ||
                                    s_[pos_] == '\r'))
            ++pos_;
    }
    char peek() {
        skipSpace();
        if (pos_ >= s_.size()) fail("unexpected end");
        return s_[pos_];
    }
    void expect(char c) {
        if (peek() != c) fail(std::string("expected '") + c + "'");
        ++pos_;
    }
    void literal(const char* word) {
        for (const char* p = word; *p; ++p, ++pos_)
            if (pos_ >= s_.size() || s_[pos_] != *p) fail(std::string("expected ") + word);
    }

    // In an object or array: true (and consumed) at its closing `end`; otherwise eats the
    // comma that separates this element from the previous one.
    bool atEnd(char end, bool first) {
        if (peek() == end) {
            ++pos_;
            return true;
        }
        if (!first) expect(',');
        return false;
    }

    Json parseValue() {
        Json value;
        char c = peek();
        if (c == '{') {
            value.kind = Json::Object;
            ++pos_;
            for (bool first = true; !atEnd('}', first); first = false) {
                std::string key = parseString();
                expect(':');
                value.fields[key] = parseValue();
            }
        } else if (c == '[') {
            value.kind = Json::Array;
            ++pos_;
            for (bool first = true; !atEnd(']', first); first = false)
                value.items.push_back(parseValue());
        } else if (c == '"') {
            value.kind = Json::String;
            value.text = parseString();
        } else if (c == 't' || c == 'f') {
            value.kind = Json::Bool;
            value.boolean = c == 't';
            literal(value.boolean ? "true" : "false");
        } else if (c == 'n') {
            literal("null");
        } else {
            value.kind = Json::Number;
            size_t start = pos_;
            while (pos_ < s_.size() && std::string("+-0123456789.eE").find(s_[pos_]) !=
                                           std::string::npos)
                ++pos_;
            if (pos_ == start) fail("unexpected character");
            value.text = s_.substr(start, pos_ - start);
        }
        return value;
    }

    std::string parseString() {
        expect('"');
        std::string out;
        while (true) {
            if (pos_ >= s_.size()) fail("unterminated string");
            char c = s_[pos_++];
            if (c == '"') return out;
            if (c != '\\') {
                out += c;
                continue;
            }
            if (pos_ >= s_.size()) fail("unterminated escape");
            char e = s_[pos_++];
            switch (e) {
                case 'n': out += '\n'; break;
                case 't': out += '\t'; break;
                case 'r': out += '\r'; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'u': appendUtf8(out, codePoint()); break;
                default: out += e;  // \" \\ \/
            }
        }
    }

    unsigned hex4() {
        if (pos_ + 4 > s_.size()) fail("short \\u escape");
        unsigned value = std::stoul(s_.substr(pos_, 4), nullptr, 16);
        pos_ += 4;
        return value;
    }
    unsigned codePoint() {  // after "\u": one code unit, or a surrogate pair
        unsigned high = hex4();
        if (high < 0xD800 || high > 0xDBFF) return high;
        if (s_.compare(pos_, 2, "\\u") != 0) fail("lone surrogate");
        pos_ += 2;
        return 0x10000 + ((high - 0xD800) << 10) + (hex4() - 0xDC00);
    }
    static void appendUtf8(std::string& out, unsigned cp) {
        if (cp < 0x80) {
            out += char(cp);
        } else if (cp < 0x800) {
            out += char(0xC0 | (cp >> 6));
            out += char(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            out += char(0xE0 | (cp >> 12));
            out += char(0x80 | ((cp >> 6) & 0x3F));
            out += char(0x80 | (cp & 0x3F));
        } else {
            out += char(0xF0 | (cp >> 18));
            out += char(0x80 | ((cp >> 12) & 0x3F));
            out += char(0x80 | ((cp >> 6) & 0x3F));
            out += char(0x80 | (cp & 0x3F));
        }
    }
};

// ---- your strategy goes here --------------------------------------------------------------------
// `observation` is what your seat may know now and `legal` every legal action (an array; the
// format per game is in docs/games/). `start` is the game's `start` message (game, seat,
// players, options, time). Return an index into `legal`.
size_t choose(const Json& observation, const Json& legal, const Json& start, std::mt19937_64& rng) {
    (void)observation;
    (void)start;
    return std::uniform_int_distribution<size_t>(0, legal.items.size() - 1)(rng);
}
// --------------------------------------------------------------------------------------------------

int main() {
    std::ios::sync_with_stdio(false);
    const std::string name = "starter-cpp";
    Json start;
    std::mt19937_64 rng;
    std::string line;
    while (std::getline(std::cin, line)) {
        Json message;
        try {
            message = JsonParser(line).parse();
        } catch (const std::exception& error) {  // the referee never sends this: give up loudly
            std::cerr << name << ": " << error.what() << " in: " << line << "\n";
            return 1;
        }
        const std::string& type = message["type"].text;
        if (type == "start") {
            start = message;
            rng.seed(std::stoull(message["seed"].text.empty() ? "0" : message["seed"].text));
            std::cerr << name << ": game " << message["game"].text << ", seat "
                      << message["seat"].text << " of " << message["players"].text << "\n";
            std::cout << "{\"type\":\"ready\",\"name\":\"" << name << "\"}" << std::endl;
        } else if (type == "act") {
            size_t index = choose(message["observation"], message["legal"], start, rng);
            std::cout << "{\"type\":\"action\",\"id\":" << message["id"].integer()
                      << ",\"index\":" << index << "}" << std::endl;  // endl flushes
        } else if (type == "end") {
            std::cerr << name << ": end (" << message["reason"].text << ")\n";
        } else if (type == "quit") {
            return 0;
        }  // anything else: a later protocol version's message, ignored
    }
    return 0;
}
