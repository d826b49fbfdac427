"""Conformance cases for the string ops of opset 20: RegexFullMatch, StringConcat and StringSplit.

generate.py calls add_cases(case, floats, rng). String tensors are numpy object arrays of str (the layout
onnx.numpy_helper reads and writes); generate.py maps them to TensorProto.STRING and hands them to
ONNX Runtime as fixed-width unicode .npy files, so no string here ends in "\\0".

Only cases where ONNX Runtime 1.30 follows the spec are here, since its outputs become the expected ones.
Left out, because ONNX Runtime departs from the spec or from ONNX's reference implementation (Portolan's
own tests cover them):
  * StringSplit of "" at a delimiter: the reference gives one empty substring (Python's "".split(",")),
    ONNX Runtime none.
  * StringSplit at whitespace other than " " (tabs, newlines, U+3000...): ONNX Runtime splits at spaces
    only; the spec says whitespace and the reference splits where Python's str.split() does.
  * RegexFullMatch where RE2 and Python's re differ (\\w on non-ASCII letters, say): the spec names RE2,
    which ONNX Runtime uses; ONNX's Python reference uses re.
Where the spec's words and ONNX's Python reference differ, the case follows the words, as ONNX Runtime does:
string_split_maxsplit_trailing_spaces drops the trailing whitespace of the last substring ("leading or
trailing whitespace is removed"), which Python's str.split(None, maxsplit) keeps.
"""

import numpy as np
from onnx import TensorProto, helper


def strings(values):
    """An object array of str, the numpy form of a STRING tensor (nested lists give its shape)."""
    return np.array(values, dtype=object)


def random_words(rng, count, alphabet, low, high):
    """`count` words of `low`..`high` characters drawn from `alphabet` with rng."""
    return ["".join(rng.choice(list(alphabet), int(rng.integers(low, high + 1)))) for _ in range(count)]


def _regex_cases(case, rng):
    def regex(name, pattern, x):
        case(20, name, [helper.make_node("RegexFullMatch", ["x"], ["y"], pattern=pattern)],
             [("x", x)], [("y", TensorProto.BOOL)])

    regex("regex_full_match_basic", r"www\.[\w.-]+\.\bcom\b",
          strings(["www.google.com", "www.facebook.com", "www.bbc.co.uk"]))
    regex("regex_full_match_email_domain", r"(\W|^)[\w.\-]{0,25}@(yahoo|gmail)\.com(\W|$)",
          strings([["account@gmail.com", "account@hotmail.com"], ["not email", "account2@yahoo.com"]]))
    regex("regex_full_match_empty", r"a+", np.empty((2, 0), dtype=object))
    # a full match, not a search: "aab" holds a match of a+ but is not one
    regex("regex_full_match_not_search", r"a+", strings(["aaa", "aab", "baa", "", "a"]))
    # . matches a code point (UTF-8 mode); \p{Han} is a Unicode class RE2 knows
    regex("regex_full_match_utf8", r"...|\p{Han}+x?",
          strings([["的中文", "abc", "ab"], ["中中中中x", "é", "日本語のx"]]))
    regex("regex_full_match_scalar", r"[0-9]+(\.[0-9]+)?", strings("3.14"))
    regex("regex_full_match_random", r"[ab]+[0-9]*|0+",
          strings(np.array(random_words(rng, 24, "ab01 ", 0, 6), dtype=object).reshape(2, 3, 4)))


def _concat_cases(case, rng):
    def concat(name, x, y):
        case(20, name, [helper.make_node("StringConcat", ["x", "y"], ["z"])],
             [("x", x), ("y", y)], [("z", TensorProto.STRING)])

    concat("string_concat", strings(["abc", "def"]), strings([".com", ".net"]))
    concat("string_concat_broadcasting", strings(["cat", "dog", "snake"]), strings(["s"]))
    concat("string_concat_zero_dimensional", strings("cat"), strings("s"))
    concat("string_concat_empty_string", strings(["abc", ""]), strings(["", "abc"]))
    concat("string_concat_utf8", strings(["的", "中"]), strings(["的", "中"]))
    concat("string_concat_broadcast_both", strings([["a"], ["bb"]]), strings(["1", "22", "333"]))
    concat("string_concat_empty_tensor", np.empty((0, 3), dtype=object), strings(["x", "y", "z"]))
    concat("string_concat_random",
           strings(np.array(random_words(rng, 6, "xyz中", 0, 4), dtype=object).reshape(2, 1, 3)),
           strings(np.array(random_words(rng, 4, "ab-", 0, 3), dtype=object).reshape(4, 1)))


def _split_cases(case, rng):
    def split(name, x, **attributes):
        case(20, name, [helper.make_node("StringSplit", ["x"], ["y", "z"], **attributes)],
             [("x", x)], [("y", TensorProto.STRING), ("z", TensorProto.INT64)])

    split("string_split_basic", strings(["abc.com", "def.net"]), delimiter=".")
    split("string_split_consecutive_delimiters", strings(["o-n-n--x-", "o-n----nx"]), delimiter="-")
    split("string_split_empty_string_delimiter",
          strings(["hello world !", "  hello   world !", " hello world   ! "]), delimiter="")
    split("string_split_no_delimiter", strings(["hello world !", "  hello   world !", " hello world   ! "]))
    split("string_split_maxsplit",
          strings([["hello world", "def.net"], ["o n n x", "the quick brown fox"]]), maxsplit=2)
    # the remainder after the last split keeps its inner spaces and loses its trailing ones
    split("string_split_maxsplit_trailing_spaces", strings(["  a b  c   ", "one", "   ", "x  y"]), maxsplit=1)
    split("string_split_maxsplit_zero", strings(["  a b  ", "c"]), maxsplit=0)
    split("string_split_maxsplit_delimiter", strings(["a,b,c,d", "a,,", ",", "abc"]), delimiter=",", maxsplit=2)
    split("string_split_multichar_delimiter", strings([["a::b:::c", "::"], ["a:b", "x::::y"]]), delimiter="::")
    split("string_split_utf8_delimiter", strings(["的中的文的", "中文"]), delimiter="的")
    split("string_split_scalar", strings("1;22;333"), delimiter=";")
    # no element gives a substring: the last axis is 0 long
    split("string_split_empty_tensor", np.empty((0,), dtype=object))
    split("string_split_all_blank", strings([["  ", ""], [" ", "   "]]))
    # a negative maxsplit is no limit, as in Python's str.split()
    split("string_split_negative_maxsplit", strings(["a,b,c", "d,"]), delimiter=",", maxsplit=-1)
    # comma-separated words with empty ones among them; no element is "" (see the docstring)
    words = random_words(rng, 30, "ab,", 1, 8)
    split("string_split_random", strings(np.array(words, dtype=object).reshape(5, 6)), delimiter=",")


def add_cases(case, floats, rng):
    _regex_cases(case, rng)
    _concat_cases(case, rng)
    _split_cases(case, rng)
