"""Writes files/ and cases.json: the metrics OSWorld reads text files and command output with:
compare_csv and check_list (a CSV exported by the agent; what a command printed into the task's
cache), file_contains, check_line_number, compare_python_pure_text, is_in_vm_clickboard, and
fuzzy_place_math (the words of a Writer document).

Needs python-docx (the parity venv) for the documents of fuzzy_place_math. Each case's `note`
says what it probes."""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = os.path.join(HERE, "files")

TEXTS = {
    # compare_csv
    "contacts.csv": b"Name,Email\nAnn,ann@example.org\nBob,bob@example.org\n",
    "contacts_crlf.csv": b"Name,Email\r\nAnn,ann@example.org\r\nBob,bob@example.org\r\n",
    "contacts_no_end.csv": b"Name,Email\nAnn,ann@example.org\nBob,bob@example.org",
    "contacts_blank_end.csv": b"Name,Email\nAnn,ann@example.org\nBob,bob@example.org\n\n",
    "contacts_spaced.csv": b"  Name,Email \nAnn,ann@example.org\t\nBob,bob@example.org\n",
    "contacts_upper.csv": b"NAME,EMAIL\nANN,ANN@EXAMPLE.ORG\nBOB,BOB@EXAMPLE.ORG\n",
    "contacts_other.csv": b"Name,Email\nAnn,ann@example.org\n",
    "contacts_bom.csv": b"\xef\xbb\xbfName,Email\nAnn,ann@example.org\nBob,bob@example.org\n",
    "contacts_cr.csv": b"Name,Email\rAnn,ann@example.org\rBob,bob@example.org\r",
    "cafe_latin1.csv": b"Caf\xe9,Price\nLatte,3\n",
    "cafe_utf8.csv": "Café,Price\nLatte,3\n".encode(),
    "cafe_cp1252.csv": b"Caf\x80,Price\nLatte,3\n",
    "cafe_euro.csv": "Caf\u0080,Price\nLatte,3\n".encode(),
    "separators.csv": "a,b\u2028c,d\x0ce,f\x1cg,h\x85i,j\n".encode(),
    "separators_lines.csv": b"a,b\nc,d\ne,f\ng,h\ni,j\n",
    "nbsp.csv": "\u00a0Name,Email\u3000\nAnn,ann@example.org\nBob,bob@example.org\n".encode(),
    "sigma.csv": "ΟΔΟΣ,Α\n".encode(),
    "sigma_lower.csv": "οδος,α\n".encode(),
    "dotted_i.csv": "İstanbul,1\n".encode(),
    "dotted_i_lower.csv": "i̇stanbul,1\n".encode(),
    "empty.csv": b"",
    "newline_only.csv": b"\n",
    # check_list
    "apt.out": b"Listing...\nopenjdk-17-jre/stable,now 17.0.9 amd64 [installed]\nzip/stable,now 3.0-13 amd64 [installed]\n",
    "grep.out": b"/home/user/.config/libreoffice/4/user/uno_packages/cache/uno_packages/lu1.tmp_/LanguageTool.oxt/META-INF/manifest.xml:3:org.openoffice.languagetool.oxt\n",
    "diff_empty.out": b"",
    "diff_differs.out": b"Binary files .aws-invoice-2312.pdf and /home/user/Documents/Finance/receipts/aws-invoice-2312.pdf differ\n",
    "blank_line.out": b"\n",
    "wmctrl.out": b"0x00e00003  0 org.gnome.Nautilus.Org.gnome.Nautilus  host OSWorld\n0x01a00004  0 gnome-terminal-server.Gnome-terminal  host user@host: ~/Documents/Projects/OSWorld\n",
    "crlf.out": b"first line\r\nlast line\r\n",
    "no_end.out": b"alpha\nomega",
    "unicode.out": "naïve café ٣\n".encode(),
    # file_contains, check_line_number
    "sar.txt": b"Linux 6.1.0 (host) \t12/06/2026 \t_x86_64_\t(2 CPU)\n\n"
               b"10:00:01 AM     CPU     %user     %nice   %system   %iowait    %steal     %idle\n"
               b"10:00:02 AM     all      1.00      0.00      0.50      0.00      0.00     98.50\n"
               b"10:00:03 AM     all      2.00      0.00      0.50      0.00      0.00     97.50\n"
               b"Average:        all      1.50      0.00      0.50      0.00      0.00     98.00\n",
    "times_crlf.txt": b"23:59:59 late\r\n24:00:00 not a time\r\n00:00:60 leap\r\n7:05:09 one digit hour\r\n",
    "times_arabic.txt": "١٠:٠٠:٠١ Arabic-Indic digits\n".encode(),
    "not_utf8.txt": b"10:00:01 \xff\n",
    # compare_python_pure_text
    "gold.py": b"import dspy\n\n\ndef main():\n    print('hi')\n\n\nmain()\n",
    "same_tabs.py": b"#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\nimport dspy\n\ndef main():\n\tprint('hi')   \n\n\nmain()",
    "three_headers.py": b"#!/usr/bin/env python3\n# coding: utf-8\n# coding=utf-8\n# coding: latin-1\nimport dspy\ndef main():\n    print('hi')\nmain()\n",
    "header_after_code.py": b"import dspy\n#!/usr/bin/env python3\ndef main():\n    print('hi')\nmain()\n",
    "markdown.py": b"```python\nimport dspy\ndef main():\n    print('hi')\nmain()\n```\n",
    "indented_more.py": b"import dspy\ndef main():\n        print('hi')\nmain()\n",
    "tab_after_text.py": b"import dspy\ndef main():\n  \tprint('hi')\nmain()\n",
    "two_spaces_tab.py": b"import dspy\ndef main():\n    print('hi')\nmain()\n",
    "crlf.py": b"import dspy\r\n\r\ndef main():\r\n    print('hi')\r\nmain()\r\n",
    "latin1.py": b"import dspy\ndef main():\n    print('caf\xe9')\nmain()\n",
    "blank_header.py": b"\n#!/usr/bin/env python3\nimport dspy\ndef main():\n    print('hi')\nmain()\n",
    "spaced_header.py": b"   #!/usr/bin/env python3\nimport dspy\ndef main():\n    print('hi')\nmain()\n",
    # is_in_vm_clickboard
    "clipboard_path.txt": b"/home/user/Data3/List3/secret.docx",
    "clipboard_none.txt": b"None\n",
    "clipboard_empty.txt": b"",
    "clipboard_two.txt": b"Deadline: May 1\nVenue: Vienna\n",
}

RULES = {
    "expect_jdk.json": {"expect": ["openjdk-\\d+-(jre|jdk)"]},
    "expect_jdk_only.json": {"expect": ["openjdk-\\d+-jdk"]},
    "expect_languagetool.json": {"expect": ["org\\.openoffice\\.languagetool\\.oxt"]},
    "unexpect_any.json": {"unexpect": [".+"]},
    "unexpect_anything.json": {"unexpect": [".*"]},
    "expect_two.json": {"expect": ["\\bopenjdk\\b", "^zip/"]},
    "expect_line_end.json": {"expect": ["\\[installed\\]$"]},
    "expect_newline.json": {"expect": ["installed\\]\\n"]},
    "expect_end_of_text.json": {"expect": ["omega$"]},
    "expect_alpha_end.json": {"expect": ["alpha$"]},
    "expect_crlf_end.json": {"expect": ["first line$"]},
    "expect_cr.json": {"expect": ["\\r"]},
    "expect_wmctrl.json": {"expect": ["\\borg\\.gnome\\.Nautilus\\.Org\\.gnome\\.Nautilus\\b.*\\bOSWorld\\b",
                                      "gnome-terminal-server\\.Gnome-terminal\\b.*~/Documents/Projects/OSWorld\\b"]},
    "expect_and_unexpect.json": {"expect": ["zip"], "unexpect": ["^Listing\\.\\.\\.$"]},
    "expect_none.json": {},
    "expect_empty_lists.json": {"expect": [], "unexpect": []},
    "expect_unicode_word.json": {"expect": ["\\w+ café \\d"]},
    "expect_dot_newline.json": {"expect": ["alpha.omega"]},
    "expect_bad_pattern.json": {"expect": ["(unclosed"]},
    "expect_string.json": {"expect": "zq"},
    "expect_end_z.json": {"expect": ["omega\\Z"]},
    "expect_alpha_z.json": {"expect": ["alpha\\Z"]},
    "expect_lower_z.json": {"expect": ["omega\\z"]},
    "expect_dollar_newline.json": {"expect": ["alpha$\n"]},
    "expect_dollar_class.json": {"expect": ["[$]"]},
    "expect_dict.json": {"expect": {"zip": 1, "openjdk": 2}},
    "contains_sar.json": {"expected": ["CPU", "%user", "%nice", "%system", "%iowait", "%steal", "%idle"]},
    "contains_missing.json": {"expected": ["CPU", "%guest"]},
    "contains_string.json": {"expected": "%CPU"},
    "contains_number.json": {"expected": [5]},
    "contains_crlf.json": {"expected": ["late\r\n"]},
    "contains_nothing.json": {"expected": []},
    "contains_no_key.json": {"include": ["CPU"]},
    "lines_3.json": {"expected": "3"},
    "lines_3_int.json": {"expected": 3},
    "lines_3_float.json": {"expected": 3.9},
    "lines_3_spaced.json": {"expected": " 3 "},
    "lines_3_text_float.json": {"expected": "3.0"},
    "lines_2.json": {"expected": "2"},
    "lines_1.json": {"expected": 1},
    "lines_none.json": {"expected": None},
    "lines_true.json": {"expected": True},
    "clip_path.json": {"expected": "/home/user/Data3/List3/secret.docx"},
    "clip_none.json": {"expected": ["None"]},
    "clip_two.json": {"expected": ["May 1", "Vienna"]},
    "clip_two_wrong.json": {"expected": ["May 1", "Paris"]},
    "clip_number.json": {"expected": 5},
    "clip_list_number.json": {"expected": [5]},
    "clip_no_key.json": {"include": "x"},
    "clip_empty_list.json": {"expected": []},
    "places.json": {"expected": ["深圳市福田区益田路5055号", "深圳市福田区福华三路111号", "深圳市罗湖区人民南路2008号"]},
    "places_string.json": {"expected": "深圳"},
    "places_no_key.json": {"answers": ["x"]},
}

CASES = [
    ("csv_same", "compare_csv", "contacts.csv", "contacts.csv", {}, "a file against itself"),
    ("csv_crlf", "compare_csv", "contacts_crlf.csv", "contacts.csv", {}, "CRLF line ends against LF"),
    ("csv_cr", "compare_csv", "contacts_cr.csv", "contacts.csv", {}, "old Mac CR line ends"),
    ("csv_no_final_newline", "compare_csv", "contacts_no_end.csv", "contacts.csv", {}, "no newline at the end"),
    ("csv_blank_line_at_end", "compare_csv", "contacts_blank_end.csv", "contacts.csv", {}, "an extra empty line is a line"),
    ("csv_spaces_strict", "compare_csv", "contacts_spaced.csv", "contacts.csv", {}, "spaces around lines, strict by default"),
    ("csv_spaces_loose", "compare_csv", "contacts_spaced.csv", "contacts.csv", {"strict": False}, "spaces stripped"),
    ("csv_spaces_strict_zero", "compare_csv", "contacts_spaced.csv", "contacts.csv", {"strict": 0}, "strict given as 0 is false"),
    ("csv_case", "compare_csv", "contacts_upper.csv", "contacts.csv", {}, "case differs"),
    ("csv_case_ignored", "compare_csv", "contacts_upper.csv", "contacts.csv", {"ignore_case": True}, "case folded"),
    ("csv_case_ignored_string", "compare_csv", "contacts_upper.csv", "contacts.csv", {"ignore_case": "yes"}, "a non-empty string is true"),
    ("csv_fewer_rows", "compare_csv", "contacts_other.csv", "contacts.csv", {}, "a row missing"),
    ("csv_bom", "compare_csv", "contacts_bom.csv", "contacts.csv", {}, "a UTF-8 BOM stays a character"),
    ("csv_bom_loose", "compare_csv", "contacts_bom.csv", "contacts.csv", {"strict": False}, "strip does not take a BOM"),
    ("csv_latin1", "compare_csv", "cafe_latin1.csv", "cafe_utf8.csv", {}, "bytes that are not UTF-8 read as Latin-1"),
    ("csv_cp1252_as_latin1", "compare_csv", "cafe_cp1252.csv", "cafe_euro.csv", {}, "0x80 is U+0080 in Latin-1, not the euro sign"),
    ("csv_separators", "compare_csv", "separators.csv", "separators_lines.csv", {}, "U+2028, form feed, U+001C and U+0085 end lines"),
    ("csv_nbsp_loose", "compare_csv", "nbsp.csv", "contacts.csv", {"strict": False}, "no-break and ideographic spaces are stripped"),
    ("csv_sigma", "compare_csv", "sigma.csv", "sigma_lower.csv", {"ignore_case": True}, "a final capital sigma lowers to final sigma"),
    ("csv_dotted_i", "compare_csv", "dotted_i.csv", "dotted_i_lower.csv", {"ignore_case": True}, "capital I with dot lowers to i and a combining dot"),
    ("csv_empty_both", "compare_csv", "empty.csv", "empty.csv", {}, "two empty files"),
    ("csv_empty_newline", "compare_csv", "empty.csv", "newline_only.csv", {}, "no lines against one empty line"),
    ("csv_missing_result", "compare_csv", None, "contacts.csv", {}, "the agent wrote no file"),
    ("csv_result_not_there", "compare_csv", "not_there.csv", "contacts.csv", {}, "a result path that does not exist"),
    ("csv_expected_list_second", "compare_csv", "contacts_upper.csv", ["contacts.csv", "contacts_upper.csv"], {}, "the second of two expected files"),
    ("csv_expected_list_none", "compare_csv", "contacts_cr.csv", ["contacts_other.csv", "contacts_upper.csv"], {}, "none of two expected files"),
    ("csv_expected_list_gone_first", "compare_csv", "contacts.csv", ["not_there.csv", "contacts.csv"], {}, "an expected file not there is passed over"),
    ("csv_expected_list_null_first", "compare_csv", "contacts.csv", [None, "contacts.csv"], {}, "nothing as an expected file raises"),
    ("csv_expected_list_null_after_match", "compare_csv", "contacts.csv", ["contacts.csv", None], {}, "a match before nothing is still a match"),
    ("csv_expected_null", "compare_csv", "contacts.csv", None, {}, "no expected file raises"),
    ("csv_expected_not_there", "compare_csv", "contacts.csv", "not_there.csv", {}, "an expected path that does not exist"),
    ("list_jdk", "check_list", "apt.out", "expect_jdk.json", {}, "a package line found"),
    ("list_jdk_only", "check_list", "apt.out", "expect_jdk_only.json", {}, "no jdk installed"),
    ("list_languagetool", "check_list", "grep.out", "expect_languagetool.json", {}, "the extension found by grep"),
    ("list_diff_empty", "check_list", "diff_empty.out", "unexpect_any.json", {}, "diff printed nothing"),
    ("list_diff_differs", "check_list", "diff_differs.out", "unexpect_any.json", {}, "diff printed a difference"),
    ("list_blank_line_any", "check_list", "blank_line.out", "unexpect_any.json", {}, ".+ does not match a newline alone"),
    ("list_blank_line_anything", "check_list", "blank_line.out", "unexpect_anything.json", {}, ".* matches an empty line"),
    ("list_empty_anything", "check_list", "diff_empty.out", "unexpect_anything.json", {}, "an empty file has no lines"),
    ("list_two", "check_list", "apt.out", "expect_two.json", {}, "two patterns on two lines"),
    ("list_line_end", "check_list", "apt.out", "expect_line_end.json", {}, "$ before the line's newline"),
    ("list_newline", "check_list", "apt.out", "expect_newline.json", {}, "a pattern with the newline itself"),
    ("list_end_of_text", "check_list", "no_end.out", "expect_end_of_text.json", {}, "$ at the end of a last line without newline"),
    ("list_alpha_end", "check_list", "no_end.out", "expect_alpha_end.json", {}, "$ before a newline"),
    ("list_crlf_end", "check_list", "crlf.out", "expect_crlf_end.json", {}, "CRLF read as LF: $ matches"),
    ("list_cr", "check_list", "crlf.out", "expect_cr.json", {}, "no CR is left in text mode"),
    ("list_wmctrl", "check_list", "wmctrl.out", "expect_wmctrl.json", {}, "OSWorld's window list patterns"),
    ("list_wmctrl_missing", "check_list", "apt.out", "expect_wmctrl.json", {}, "the windows are not there"),
    ("list_expect_and_unexpect", "check_list", "apt.out", "expect_and_unexpect.json", {}, "an unexpected whole line"),
    ("list_no_rules", "check_list", "apt.out", "expect_none.json", {}, "no rules at all"),
    ("list_empty_lists", "check_list", "diff_empty.out", "expect_empty_lists.json", {}, "empty lists of rules"),
    ("list_unicode", "check_list", "unicode.out", "expect_unicode_word.json", {}, "Unicode word characters and digits"),
    ("list_dot_newline", "check_list", "no_end.out", "expect_dot_newline.json", {}, "a line at a time: no pattern spans lines"),
    ("list_missing_result", "check_list", None, "expect_jdk.json", {}, "the command's output is not there"),
    ("list_end_z", "check_list", "no_end.out", "expect_end_z.json", {}, "\\Z at the very end"),
    ("list_alpha_z", "check_list", "no_end.out", "expect_alpha_z.json", {}, "\\Z is not before a newline"),
    ("list_lower_z", "check_list", "no_end.out", "expect_lower_z.json", {}, "\\z is a bad escape in Python"),
    ("list_dollar_newline", "check_list", "no_end.out", "expect_dollar_newline.json", {}, "$ then the newline itself"),
    ("list_dollar_class", "check_list", "no_end.out", "expect_dollar_class.json", {}, "$ in a class is a dollar"),
    ("list_string", "check_list", "apt.out", "expect_string.json", {}, "a string of patterns is its characters: z is there, q is not"),
    ("list_dict", "check_list", "apt.out", "expect_dict.json", {}, "a dict of patterns is its keys"),
    ("list_bad_pattern", "check_list", "apt.out", "expect_bad_pattern.json", {}, "a pattern Python cannot read raises"),
    ("contains_sar", "file_contains", "sar.txt", "contains_sar.json", {}, "every column of sar's report"),
    ("contains_missing", "file_contains", "sar.txt", "contains_missing.json", {}, "one column missing"),
    ("contains_string", "file_contains", "sar.txt", "contains_string.json", {}, "a string is looked for character by character"),
    ("contains_number", "file_contains", "sar.txt", "contains_number.json", {}, "a number cannot be looked for: caught, 0"),
    ("contains_crlf", "file_contains", "times_crlf.txt", "contains_crlf.json", {}, "CRLF is read as LF"),
    ("contains_nothing", "file_contains", "sar.txt", "contains_nothing.json", {}, "nothing asked for"),
    ("contains_no_key", "file_contains", "sar.txt", "contains_no_key.json", {}, "rules without expected: caught, 0"),
    ("contains_not_utf8", "file_contains", "not_utf8.txt", "contains_sar.json", {}, "not UTF-8: caught, 0"),
    ("contains_no_file", "file_contains", None, "contains_sar.json", {}, "no file"),
    ("lines_sar", "check_line_number", "sar.txt", "lines_3.json", {}, "three lines with a time"),
    ("lines_sar_int", "check_line_number", "sar.txt", "lines_3_int.json", {}, "the count as a number"),
    ("lines_sar_float", "check_line_number", "sar.txt", "lines_3_float.json", {}, "int() truncates 3.9"),
    ("lines_sar_spaced", "check_line_number", "sar.txt", "lines_3_spaced.json", {}, "int() takes spaces around"),
    ("lines_sar_text_float", "check_line_number", "sar.txt", "lines_3_text_float.json", {}, "int('3.0') raises: caught, 0"),
    ("lines_sar_wrong", "check_line_number", "sar.txt", "lines_2.json", {}, "another count"),
    ("lines_crlf", "check_line_number", "times_crlf.txt", "lines_2.json", {}, "23:59:59 and 00:00:60 are times; 24:00:00 and 7:05:09 hold none"),
    ("lines_arabic", "check_line_number", "times_arabic.txt", "lines_1.json", {}, "Arabic-Indic digits: [01] takes ASCII digits only"),
    ("lines_none", "check_line_number", "sar.txt", "lines_none.json", {}, "int(None) raises: caught, 0"),
    ("lines_true", "check_line_number", "times_arabic.txt", "lines_true.json", {}, "True is 1"),
    ("lines_not_utf8", "check_line_number", "not_utf8.txt", "lines_1.json", {}, "not UTF-8: caught, 0"),
    ("lines_no_file", "check_line_number", None, "lines_1.json", {}, "no file"),
    ("python_same", "compare_python_pure_text", "gold.py", "gold.py", {}, "itself"),
    ("python_tabs_and_headers", "compare_python_pure_text", "same_tabs.py", "gold.py", {}, "a shebang and coding line, a tab, trailing spaces, fewer blank lines"),
    ("python_three_headers", "compare_python_pure_text", "three_headers.py", "gold.py", {}, "only the first three lines may be headers"),
    ("python_header_after_code", "compare_python_pure_text", "header_after_code.py", "gold.py", {}, "a shebang after code stays"),
    ("python_markdown", "compare_python_pure_text", "markdown.py", "gold.py", {}, "markdown fences stay"),
    ("python_indented_more", "compare_python_pure_text", "indented_more.py", "gold.py", {}, "indentation counts"),
    ("python_tab_after_text", "compare_python_pure_text", "tab_after_text.py", "two_spaces_tab.py", {}, "a tab after two spaces reaches column 4"),
    ("python_crlf", "compare_python_pure_text", "crlf.py", "gold.py", {}, "CRLF lines"),
    ("python_latin1", "compare_python_pure_text", "latin1.py", "gold.py", {}, "not UTF-8: 0"),
    ("python_blank_header", "compare_python_pure_text", "blank_header.py", "gold.py", {}, "a blank first line ends the headers"),
    ("python_spaced_header", "compare_python_pure_text", "spaced_header.py", "gold.py", {}, "a header after spaces is still one"),
    ("python_no_gold", "compare_python_pure_text", "gold.py", "not_there.py", {}, "no gold file"),
    ("python_no_file", "compare_python_pure_text", None, "gold.py", {}, "no file"),
    ("clip_path", "is_in_vm_clickboard", "clip_path.json", "clipboard_path.txt", {}, "the path copied"),
    ("clip_path_wrong", "is_in_vm_clickboard", "clip_path.json", "clipboard_two.txt", {}, "something else copied"),
    ("clip_none", "is_in_vm_clickboard", "clip_none.json", "clipboard_none.txt", {}, "the word None"),
    ("clip_two", "is_in_vm_clickboard", "clip_two.json", "clipboard_two.txt", {}, "both strings"),
    ("clip_two_wrong", "is_in_vm_clickboard", "clip_two_wrong.json", "clipboard_two.txt", {}, "one of two"),
    ("clip_empty_list", "is_in_vm_clickboard", "clip_empty_list.json", "clipboard_two.txt", {}, "nothing asked for"),
    ("clip_number", "is_in_vm_clickboard", "clip_number.json", "clipboard_two.txt", {}, "a number raises"),
    ("clip_list_number", "is_in_vm_clickboard", "clip_list_number.json", "clipboard_two.txt", {}, "a number in the list raises"),
    ("clip_no_key", "is_in_vm_clickboard", "clip_no_key.json", "clipboard_two.txt", {}, "no expected key raises"),
    ("places_exact", "fuzzy_place_math", "places_exact.docx", "places.json", {}, "the three addresses"),
    ("places_near", "fuzzy_place_math", "places_near.docx", "places.json", {}, "near misses score a fraction"),
    ("places_two", "fuzzy_place_math", "places_two.docx", "places.json", {}, "two words"),
    ("places_one_paragraph", "fuzzy_place_math", "places_one_paragraph.docx", "places.json", {}, "three words in one paragraph, tabs and no-break spaces between"),
    ("places_string", "fuzzy_place_math", "places_exact.docx", "places_string.json", {}, "a string iterates as characters"),
    ("places_no_key", "fuzzy_place_math", "places_exact.docx", "places_no_key.json", {}, "no expected key raises"),
    ("places_no_file", "fuzzy_place_math", None, "places.json", {}, "no file"),
    ("docx_lines_same", "compare_docx_lines", "places_exact.docx", "places_exact.docx", {}, "itself"),
    ("docx_lines_reordered", "compare_docx_lines", "lines_reordered.docx", "places_exact.docx", {}, "the same lines in another order, blank and spaced ones among them"),
    ("docx_lines_duplicated", "compare_docx_lines", "lines_duplicated.docx", "places_exact.docx", {}, "a line twice: still the same set"),
    ("docx_lines_changed", "compare_docx_lines", "places_near.docx", "places_exact.docx", {}, "other lines"),
    ("docx_lines_not_docx", "compare_docx_lines", "sar.txt", "places_exact.docx", {}, "not a document"),
    ("docx_lines_no_file", "compare_docx_lines", None, "places_exact.docx", {}, "no file"),
]


def documents():
    """The Writer documents of fuzzy_place_math, each paragraph a list of words."""
    import docx

    for name, paragraphs in [
        ("places_exact.docx", ["深圳市福田区益田路5055号", "深圳市福田区福华三路111号", "深圳市罗湖区人民南路2008号"]),
        ("places_near.docx", ["深圳市福田区益田路5055", "福田区福华三路111号", "深圳市罗湖区人民南路2008号大厦"]),
        ("places_two.docx", ["深圳市福田区益田路5055号", "", "深圳市福田区福华三路111号"]),
        ("places_one_paragraph.docx", ["深圳市福田区益田路5055号\t深圳市福田区福华三路111号\u00a0深圳市罗湖区人民南路2008号"]),
        ("lines_reordered.docx", ["  深圳市罗湖区人民南路2008号\u3000", "", "\t", "深圳市福田区福华三路111号", "深圳市福田区益田路5055号"]),
        ("lines_duplicated.docx", ["深圳市福田区益田路5055号", "深圳市福田区福华三路111号", "深圳市罗湖区人民南路2008号", "深圳市福田区益田路5055号"]),
    ]:
        d = docx.Document()
        for text in paragraphs:
            d.add_paragraph(text)
        path = os.path.join(FILES, name)
        d.save(path)
        # Fixed dates and zip times: the same bytes at every run.
        import zipfile
        with zipfile.ZipFile(path) as z:
            parts = [(i.filename, z.read(i.filename)) for i in z.infolist()]
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
            for part, data in parts:
                if part == "docProps/core.xml":
                    import re
                    data = re.sub(rb"(<dcterms:(created|modified)[^>]*>)[^<]*", rb"\g<1>2024-01-01T00:00:00Z", data)
                info = zipfile.ZipInfo(part, date_time=(2024, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                z.writestr(info, data)


def main():
    os.makedirs(FILES, exist_ok=True)
    for name, data in TEXTS.items():
        with open(os.path.join(FILES, name), "wb") as f:
            f.write(data)
    for name, rules in RULES.items():
        with open(os.path.join(FILES, name), "w") as f:
            json.dump(rules, f, indent=1)
            f.write("\n")
    documents()
    cases = []
    for name, func, result, expected, options, note in CASES:
        case = {"name": name, "func": func, "result": result, "expected": expected, "options": options, "note": note}
        if func in ("check_list", "file_contains", "check_line_number", "fuzzy_place_math"):
            case["expected_as"] = "json"
        if func == "is_in_vm_clickboard":
            case["result_as"], case["expected_as"] = "json", "text"
        cases.append(case)
    with open(os.path.join(HERE, "cases.json"), "w") as f:
        json.dump(cases, f, indent=1, ensure_ascii=False)
        f.write("\n")


if __name__ == "__main__":
    main()
