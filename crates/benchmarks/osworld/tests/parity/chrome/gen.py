"""Writes the Chrome parity cases: OSWorld's metrics over what its Chrome getters give (open
tabs, the active tab, bookmark roots, history and cookie rows, font sizes, chrome://flags
experiments, desktop launchers), with URLs that exercise `compare_urls` (schemes, `www`,
public suffixes of one and two labels, private suffixes such as github.io that tldextract
leaves out by default, ports, user info, IP addresses, trailing slashes and dots, params,
queries and fragments).

Left out on purpose: a missing result where OSWorld's metric iterates it (history, cookies:
Python raises on None), and a text result that is no JSON once its quotes are made double
(check_direct_json_object: `{'name': "Joe's"}` raises in json.loads), score 0 here, the
agent's failure. Rules without their fields are
errors on both sides, and are kept.

Run from anywhere; it writes `files/` and `cases.json` beside itself. Plain Python.
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = os.path.join(HERE, "files")
cases = []


def case(name, func, result, rule, note):
    r, e = name + ".result.json", name + ".rule.json"
    with open(os.path.join(FILES, r), "w") as f:
        json.dump(result, f)
    with open(os.path.join(FILES, e), "w") as f:
        json.dump(rule, f)
    cases.append({"name": name, "func": func, "result": r, "expected": e, "result_as": "json",
                  "expected_as": "json", "options": {}, "note": note})


def tabs(*urls):
    return [{"title": "t%d" % i, "url": u} for i, u in enumerate(urls)]


URL_PAIRS = [
    ("same", "https://www.example.com/a", "https://www.example.com/a"),
    ("www_dropped", "https://www.example.com/a", "https://example.com/a"),
    ("suffix_ignored", "https://www.airbnb.com/", "https://airbnb.com.sg"),
    ("two_label_suffix", "https://bbc.co.uk/news", "https://bbc.com/news"),
    ("subdomain_kept", "https://maps.google.com/", "https://google.com/"),
    ("www2_kept", "https://www2.example.com/", "https://example.com/"),
    ("private_suffix", "https://user.github.io/x", "https://user.github.com/x"),
    ("blogspot", "https://a.blogspot.com/", "https://a.blogspot.de/"),
    ("scheme_differs", "https://example.com/", "http://example.com/"),
    ("no_scheme", "example.com/path", "http://example.com/path"),
    ("no_scheme_https", "example.com/path", "https://example.com/path"),
    ("port_ignored", "http://localhost:8000/a", "http://localhost:9000/a"),
    ("user_ignored", "https://bob@example.com/", "https://example.com/"),
    ("trailing_slash", "https://example.com/", "https://example.com"),
    ("path_slash", "https://example.com/a/", "https://example.com/a"),
    ("query_differs", "https://example.com/?q=1", "https://example.com/?q=2"),
    ("query_same", "https://example.com/s?q=cats&x=1", "https://www.example.com/s?q=cats&x=1"),
    ("fragment", "https://example.com/#top", "https://example.com/"),
    ("params", "https://example.com/a;p=1", "https://example.com/a;p=2"),
    ("case", "HTTPS://WWW.Example.COM/Path", "https://example.com/Path"),
    ("path_case", "https://example.com/Path", "https://example.com/path"),
    ("ipv4", "http://127.0.0.1:5000/p", "127.0.0.1/p"),
    ("ipv4_differs", "http://127.0.0.1/p", "http://127.0.0.2/p"),
    ("ipv6", "http://[::1]:8080/a", "http://[::1]/a"),
    ("trailing_dot", "https://example.com./a", "https://example.com/a"),
    ("unknown_tld", "http://intranet.corp/a", "http://intranet.other/a"),
    ("localhost_sub", "http://a.localhost/", "http://b.localhost/"),
    ("chrome_scheme", "chrome://settings/", "chrome://settings"),
    ("chrome_scheme_differs", "chrome://settings/", "chrome://history/"),
    ("file_scheme", "file:///home/user/a.html", "file:///home/user/a.html"),
    ("file_differs", "file:///home/user/a.html", "file:///home/user/b.html"),
    ("about_blank", "about:blank", "about:blank"),
    ("data_url", "data:text/html,<p>a</p>", "data:text/html,<p>b</p>"),
    ("wildcard_suffix", "https://shop.foo.ck/", "https://shop.bar.ck/"),
    ("deep_subdomain", "https://a.b.example.co.jp/", "https://a.b.example.com/"),
]


def main():
    os.makedirs(FILES, exist_ok=True)
    for old in os.listdir(FILES):
        os.remove(os.path.join(FILES, old))
    for name, a, b in URL_PAIRS:
        case("tabs_" + name, "is_expected_tabs", tabs(b), {"type": "url", "urls": [a]}, "one tab: " + b)
        case("active_" + name, "is_expected_active_tab", {"title": "x", "url": b, "content": ""},
             {"type": "url", "url": a}, "the active tab")
    case("tabs_two_any_order", "is_expected_tabs", tabs("https://b.org/x", "https://www.a.com/"),
         {"type": "url", "urls": ["a.com", "https://b.org/x"]}, "order does not matter")
    case("tabs_one_too_many", "is_expected_tabs", tabs("https://a.com/", "https://a.com/", "https://b.org/"),
         {"type": "url", "urls": ["https://a.com/", "https://b.org/"]}, "a duplicate tab fails")
    case("tabs_duplicate_expected", "is_expected_tabs", tabs("https://a.com/", "https://b.org/"),
         {"type": "url", "urls": ["https://a.com/", "https://a.com/"]}, "lengths equal, each expected found")
    case("tabs_none", "is_expected_tabs", [], {"type": "url", "urls": []}, "no tabs: 0 before the rule is read")
    case("tabs_other_type", "is_expected_tabs", tabs("https://a.com/"), {"type": "title", "urls": []}, "an unknown type scores 0")
    case("tabs_no_urls", "is_expected_tabs", tabs("https://a.com/"), {"type": "url"}, "the rule lacks urls")
    case("active_string", "is_expected_active_tab", "https://www.a.com/", {"type": "url", "url": "a.com"}, "a bare URL")
    case("active_empty", "is_expected_active_tab", {}, {"type": "url", "url": "a.com"}, "nothing active")
    case("active_other_type", "is_expected_active_tab", {"url": "https://a.com/"}, {"type": "title", "url": "x"}, "unknown type")
    for name, a, b in [("same_path", "https://a.com/p?x=1", "https://a.com/p?y=2"),
                       ("www", "https://www.a.com/p?x=1", "https://a.com/p"),
                       ("fragment", "https://a.com/p#x", "https://a.com/p#y"),
                       ("path", "https://a.com/p?x=1", "https://a.com/q?x=1")]:
        case("approx_" + name, "is_expected_active_tab_approximate", {"url": b}, {"type": "url", "url": a}, "query ignored")
    for name, url, patterns in [("all_match", "https://www.dmv.virginia.gov/licenses/apply?x=1", [r"dmv\.virginia\.gov", r"/licenses/"]),
                                ("one_misses", "https://www.dmv.virginia.gov/licenses/", [r"dmv", r"/renew"]),
                                ("anchored", "https://a.com/x", [r"^https://a\.com/x$"]),
                                ("unicode_class", "https://a.com/caf\u00e9", [r"/\w+$"]),
                                ("empty_list", "https://a.com/", [])]:
        case("pattern_" + name, "is_expected_url_pattern_match", {"url": url}, {"expected": patterns}, "re.search")
    case("pattern_string_result", "is_expected_url_pattern_match", "https://a.com/b", {"expected": ["/b"]}, "a bare URL")
    case("pattern_no_url", "is_expected_url_pattern_match", {"title": "x"}, {"expected": ["/b"]}, "no url field")
    case("search_query", "is_expected_search_query", {"url": "https://www.google.com/search?q=cats"},
         {"expect": {"pattern": r"q=cats"}}, "pattern in the URL")
    case("search_query_miss", "is_expected_search_query", {"url": "https://www.google.com/search?q=dogs"},
         {"expect": {"pattern": r"q=cats"}}, "pattern absent")

    bar = {"bookmark_bar": {"children": [
        {"type": "folder", "name": "Liked Authors", "children": [
            {"type": "url", "name": "A", "url": "https://a.org/1"},
            {"type": "url", "name": "B", "url": "https://b.org/2"}]},
        {"type": "folder", "name": "Recipes", "children": []},
        {"type": "url", "name": "News", "url": "https://news.org/"}]},
        "other": {"children": [], "type": "folder", "name": "Other bookmarks"}}
    case("bm_folders", "is_expected_bookmarks", bar, {"type": "bookmark_bar_folders_names", "names": ["Recipes", "Liked Authors"]}, "folder names as a set")
    case("bm_folders_missing", "is_expected_bookmarks", bar, {"type": "bookmark_bar_folders_names", "names": ["Recipes"]}, "an extra folder")
    case("bm_urls", "is_expected_bookmarks", bar, {"type": "bookmark_bar_websites_urls", "urls": ["https://news.org/"]}, "bar URLs exactly")
    case("bm_urls_slash", "is_expected_bookmarks", bar, {"type": "bookmark_bar_websites_urls", "urls": ["https://news.org"]}, "no URL normalising")
    case("bm_liked", "is_expected_bookmarks", bar, {"type": "liked_authors_websites_urls", "urls": [["https://a.org/1", "https://a.org/one"], "https://b.org/2"]}, "a choice per author")
    case("bm_liked_wrong", "is_expected_bookmarks", bar, {"type": "liked_authors_websites_urls", "urls": [["https://a.org/one"], "https://b.org/2"]}, "no choice fits")
    case("bm_liked_no_folder", "is_expected_bookmarks", {"bookmark_bar": {"children": []}}, {"type": "liked_authors_websites_urls", "urls": []}, "no folder")
    case("bm_empty", "is_expected_bookmarks", [], {"type": "bookmark_bar_folders_names", "names": []}, "no bookmarks file: []")
    case("bm_unknown_type", "is_expected_bookmarks", bar, {"type": "other_bookmarks"}, "OSWorld raises")

    history = [["https://www.amazon.com/dp/1", "Amazon", 13350000000000000],
               ["https://news.org/", "News", 13350000000000001]]
    case("history_deleted", "check_history_deleted", history, {"type": "keywords", "keywords": ["youtube"]}, "no keyword found")
    case("history_kept", "check_history_deleted", history, {"type": "keywords", "keywords": ["amazon", "ebay"]}, "a keyword found")
    case("history_case", "check_history_deleted", history, {"type": "keywords", "keywords": ["Amazon"]}, "case-sensitive")
    case("history_empty", "check_history_deleted", [], {"type": "keywords", "keywords": ["amazon"]}, "all deleted")
    case("history_other_type", "check_history_deleted", history, {"type": "domains", "keywords": []}, "OSWorld raises")
    cookies = [[13350000000000000, ".amazon.com", "", "session-id", "", "/", 0, 1, 1],
               [13350000000000000, "news.org", "", "k", "", "/", 0, 0, 0]]
    case("cookie_present", "is_cookie_deleted", cookies, {"type": "domains", "domains": [".amazon.com"]}, "a cookie left")
    case("cookie_www", "is_cookie_deleted", cookies, {"type": "domains", "domains": ["www.amazon.com"]}, "by compare_urls")
    case("cookie_gone", "is_cookie_deleted", cookies, {"type": "domains", "domains": [".ebay.com"]}, "none of its cookies")
    case("cookie_empty", "is_cookie_deleted", [], {"type": "domains", "domains": [".amazon.com"]}, "none at all")

    for name, size, rule in [("value", 20, {"type": "value", "value": 20}), ("value_miss", 16, {"type": "value", "value": 20}),
                             ("range_in", 24, {"type": "range", "min": 16, "max": 99}), ("range_edge", 16, {"type": "range", "min": 16, "max": 99}),
                             ("float", 20.0, {"type": "value", "value": 20})]:
        case("font_" + name, "check_font_size", {"default_font_size": size, "default_fixed_font_size": 13}, rule, "webkit.webprefs")
    case("font_other_type", "check_font_size", {"default_font_size": 16}, {"type": "minimum"}, "OSWorld raises")
    case("flags_same", "check_enabled_experiments", ["calculate-native-win-occlusion@2", "tab-groups"], {"type": "names", "names": ["calculate-native-win-occlusion", "tab-groups"]}, "choices cut")
    case("flags_order", "check_enabled_experiments", ["b", "a"], {"type": "names", "names": ["a", "b"]}, "order matters")
    case("flags_none", "check_enabled_experiments", [], {"type": "names", "names": []}, "none enabled, none wanted")
    desktop = {"shop.desktop": "[Desktop Entry]\nName=Shop\nExec=chromium --app=https://shop.org\n"}
    case("shortcut_name", "is_shortcut_on_desktop", desktop, {"type": "name", "name": "Shop"}, "Name= line")
    case("shortcut_exec", "is_shortcut_on_desktop", desktop, {"type": "exec", "exec": "chromium --app=https://shop.org"}, "Exec= line")
    case("shortcut_absent", "is_shortcut_on_desktop", {}, {"type": "name", "name": "Shop"}, "no launchers")
    case("shortcut_partial", "is_shortcut_on_desktop", desktop, {"type": "name", "name": "Sho"}, "the whole line")

    # check_direct_json_object (general.py): what Chrome's page getters give, or a command's
    # text read as JSON.
    J = "check_direct_json_object"
    exp = {"expected": {"name": "Pizza", "stars": 4, "tags": ["veg", "hot"]}}
    for name, result, rules in [
        ("json_equal", {"name": "Pizza", "stars": 4, "tags": ["veg", "hot"], "extra": 1}, exp),
        ("json_float", {"name": "Pizza", "stars": 4.0, "tags": ["veg", "hot"]}, exp),
        ("json_bool_is_one", {"v": True}, {"expected": {"v": 1}}),
        ("json_order", {"name": "Pizza", "stars": 4, "tags": ["hot", "veg"]}, exp),
        ("json_missing_key", {"name": "Pizza"}, exp),
        ("json_null_expected", {}, {"expected": {"k": None}}),
        ("json_text", " {'name': 'Pizza', 'stars': 4, 'tags': ['veg', 'hot']}\n", exp),
        ("json_failed_marker", {"a": 1}, {"expected": {"a": "__EVALUATION_FAILED__"}}),
        ("json_empty_expected", [1, 2], {"expected": {}}),
        ("json_no_expected", {"a": 1}, {}),
        ("json_expected_list", {"a": 1}, {"expected": [1]}),
        ("json_result_list", [1], {"expected": {"a": 1}}),
        ("json_rules_list", {"a": 1}, ["expected"]),
        ("json_ignore_order_true", {"b": [2, 1]}, {"expected": {"b": [1, 2], "ignore_list_order": True}}),
        ("json_ignore_order_list", {"b": [2, 1], "ignore_list_order": [1]}, {"expected": {"b": [1, 2], "ignore_list_order": [1]}}),
        ("json_ignore_order_mixed", {"b": [2, "a"], "ignore_list_order": [1]}, {"expected": {"b": ["a", 2], "ignore_list_order": [1]}}),
        ("json_ignore_order_strings", {"b": "ba", "ignore_list_order": "x"}, {"expected": {"b": "ab", "ignore_list_order": "x"}}),
        ("json_nested", {"a": {"b": [1, {"c": None}]}}, {"expected": {"a": {"b": [1.0, {"c": None}]}}}),
        ("in_substring", {"title": "Cats and dogs"}, {"expect_in_result": True, "expected": {"title": "dogs"}}),
        ("in_substring_miss", {"title": "Cats"}, {"expect_in_result": True, "expected": {"title": "dogs"}}),
        ("in_list_choice", {"tags": ["a", "b"]}, {"expect_in_result": True, "expected": {"tags": ["z", "b"]}}),
        ("in_list_string", {"tags": "b"}, {"expect_in_result": True, "expected": {"tags": ["z", "b"]}}),
        ("in_list_none", {"tags": ["a"]}, {"expect_in_result": True, "expected": {"tags": ["z"]}}),
        ("in_string_in_list", {"tags": ["dogs"]}, {"expect_in_result": True, "expected": {"tags": "dogs"}}),
        ("in_string_missing", {}, {"expect_in_result": True, "expected": {"tags": "dogs"}}),
        ("in_number", {"n": 5}, {"expect_in_result": True, "expected": {"n": 5}}),
        ("in_string_dict", {"d": {"k": 1}}, {"expect_in_result": True, "expected": {"d": "k"}}),
    ]:
        case(name, J, result, rules, "check_direct_json_object")

    with open(os.path.join(HERE, "cases.json"), "w") as f:
        json.dump(cases, f, indent=1)
        f.write("\n")


main()
