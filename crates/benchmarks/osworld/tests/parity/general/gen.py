"""check_json (rules at key paths of a JSON file: eq, re, missing keys under expect and unexpect,
list and text indices, negative and out-of-range ones, bools as indices, files that are not JSON)
and diff_text_file (difflib's ratio over lines: CRLF and CR ends, Unicode line separators,
repeated lines, a file of more than 200 lines where difflib's autojunk makes frequent lines
"popular"). Plain Python. Writes files/ and cases.json beside itself.

Left out, where ours differs from OSWorld: JSON with NaN or Infinity (Python reads them, we
score 0), a file that is not UTF-8 (Python raises, which escapes OSWorld's evaluate; a 0
here, as every metric here scores what the agent left), check_json's is_yaml (refused at import), and rules without a key list (an error of
the task here, a 0 in OSWorld)."""
import json, os, random

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = os.path.join(HERE, "files")
cases = []

def path(n): return os.path.join(FILES, n)
def raw(name, data):
    with open(path(name), "wb") as f: f.write(data if isinstance(data, bytes) else data.encode())
    return name
def rules_case(name, result, rules, note):
    rf = name + ".rule.json"
    with open(path(rf), "w") as f: json.dump(rules, f, ensure_ascii=False)
    cases.append({"name": name, "func": "check_json", "result": result, "expected": rf,
                  "expected_as": "json", "options": {}, "note": note})
def diff_case(name, result, expected, note):
    cases.append({"name": name, "func": "diff_text_file", "result": result, "expected": expected,
                  "options": {}, "note": note})
def eq(key, ref): return {"key": key, "method": "eq", "ref": ref}

os.makedirs(FILES, exist_ok=True)
for f in os.listdir(FILES): os.remove(path(f))

# ---- check_json ----
manifest = raw("manifest.json", json.dumps({
    "name": "happy-extension", "version": "0.0.1",
    "background": {"scripts": ["background_script.js"]},
    "browser_action": {"default_icon": {"64": "icons/icon.png"}, "default_popup": "browserAction/index.html",
                       "default_title": "happy-extension"},
    "list": [1, "two", [3, 4], {"five": 5}], "flag": True, "none": None, "text": "héllo"}, indent=2))
xul = raw("xulstore.json", json.dumps({"chrome://messenger/content/messenger.xhtml": {"folderTree": {"mode": "smart,tags"}}}))
rules_case("all_eq", manifest, {"expect": [eq(["name"], "happy-extension"), eq(["version"], "0.0.1"),
    eq(["background", "scripts"], ["background_script.js"]), eq(["browser_action", "default_icon"], {"64": "icons/icon.png"})]},
    "OSWorld's 74d5859f rules")
rules_case("one_wrong", manifest, {"expect": [eq(["name"], "happy-extension"), eq(["version"], "0.0.2")]}, "a value differs")
rules_case("re_smart", xul, {"expect": [{"key": ["chrome://messenger/content/messenger.xhtml", "folderTree", "mode"], "method": "re", "ref": "\\bsmart\\b"}]}, "OSWorld's 480bcfea rule")
rules_case("re_not_smart", xul, {"expect": [{"key": ["chrome://messenger/content/messenger.xhtml", "folderTree", "mode"], "method": "re", "ref": "\\ball\\b"}]}, "no match")
rules_case("missing_key", manifest, {"expect": [eq(["nope"], None)]}, "a missing key under expect is a 0")
rules_case("missing_after_false", manifest, {"expect": [eq(["name"], "x"), eq(["nope"], 1)]}, "still 0")
rules_case("unexpect_missing", manifest, {"expect": [eq(["name"], "happy-extension")], "unexpect": [eq(["nope"], 1)]}, "missing under unexpect is None")
rules_case("unexpect_missing_none", manifest, {"unexpect": [eq(["nope"], None)]}, "None == None under unexpect: 0")
rules_case("unexpect_present", manifest, {"unexpect": [eq(["version"], "0.0.1")]}, "an unexpected value is there")
rules_case("list_index", manifest, {"expect": [eq(["list", 1], "two"), eq(["list", 2, 0], 3), eq(["list", 3, "five"], 5)]}, "indices into lists")
rules_case("negative_index", manifest, {"expect": [eq(["list", -1, "five"], 5)]}, "Python's negative index")
rules_case("index_out_of_range", manifest, {"expect": [eq(["list", 9], 1)]}, "IndexError is caught as any error: 0")
rules_case("unexpect_out_of_range", manifest, {"unexpect": [eq(["list", 9], 1)]}, "IndexError under unexpect: 0")
rules_case("bool_index", manifest, {"expect": [eq(["list", True], "two")]}, "True is 1")
rules_case("text_index", manifest, {"expect": [eq(["text", 1], "é")]}, "a text indexed by a number gives a character")
rules_case("text_key", manifest, {"expect": [eq(["text", "a"], 1)]}, "a text indexed by a key: TypeError, 0")
rules_case("number_key_on_object", manifest, {"expect": [eq(["background", 0], 1)]}, "KeyError")
rules_case("key_into_number", manifest, {"expect": [eq(["flag", "x"], 1)]}, "bool is not subscriptable")
rules_case("key_into_null", manifest, {"unexpect": [eq(["none", "x"], 1)]}, "None is not subscriptable: None under unexpect")
rules_case("null_value_eq", manifest, {"expect": [eq(["none"], None), eq(["flag"], True)]}, "null and true read as None and True")
rules_case("float_index", manifest, {"expect": [eq(["list", 1.0], "two")]}, "list[1.0] is a TypeError: 0")
rules_case("no_rules", manifest, {}, "nothing to check: 1")
rules_case("missing_file", None, {"expect": [eq(["name"], "x")]}, "no result file")
rules_case("not_json", raw("broken.json", "{\"name\": "), {"expect": [eq(["name"], "x")]}, "not JSON: 0")
rules_case("top_level_list", raw("list.json", "[{\"a\": 1}]"), {"expect": [eq([0, "a"], 1)]}, "a list at the top")
rules_case("duplicate_keys", raw("dup.json", "{\"a\": 1, \"a\": 2}"), {"expect": [eq(["a"], 2)]}, "the last of duplicate keys")
rules_case("ge_number", manifest, {"expect": [{"key": ["list", 0], "method": "ge", "ref": 1}]}, "an order method")

# ---- diff_text_file ----
js = "function f() {\n  return 1;\n}\n\nconsole.log(f());\n"
a = raw("a.js", js)
diff_case("same", a, raw("a_copy.js", js), "identical")
diff_case("crlf", raw("a_crlf.js", js.replace("\n", "\r\n")), a, "CRLF ends read as LF")
diff_case("cr", raw("a_cr.js", js.replace("\n", "\r")), a, "CR ends too")
diff_case("one_line_changed", raw("a_changed.js", js.replace("return 1", "return 2")), a, "one line of five")
diff_case("line_separator", raw("a_ls.js", js.replace("\n\n", "\u2028\n")), a, "U+2028 splits a line in splitlines")
diff_case("form_feed", raw("a_ff.js", js.replace("}\n", "}\x0c")), a, "a form feed ends a line")
diff_case("empty_result", raw("empty.js", ""), a, "nothing against five lines")
diff_case("both_empty", "empty.js", raw("empty2.js", ""), "no lines on either side: 1")
diff_case("missing_result", None, a, "no result file")
diff_case("repeats", raw("rep_a.txt", "x\ny\nx\ny\nz\nx\n"), raw("rep_b.txt", "y\nx\nz\ny\nx\nx\n"), "repeated lines: which block difflib takes first")
rng = random.Random(7)
base = [rng.choice(["}", "", "  x += 1;", "  y -= 1;", "// note"]) if rng.random() < 0.6 else "line %d" % i for i in range(400)]
other = list(base)
for i in rng.sample(range(400), 40): other[i] = "changed %d" % i
for i in sorted(rng.sample(range(380), 10), reverse=True): del other[i]
diff_case("autojunk", raw("long_a.txt", "\n".join(base) + "\n"), raw("long_b.txt", "\n".join(other) + "\n"),
          "400 lines, a few very frequent: autojunk's popular lines start no match")
diff_case("autojunk_swapped", "long_b.txt", "long_a.txt", "the same the other way round (popularity is b's)")

with open(os.path.join(HERE, "cases.json"), "w") as f:
    json.dump(cases, f, indent=1, ensure_ascii=False)
print(len(cases), "cases")
