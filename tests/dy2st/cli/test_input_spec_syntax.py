"""`dy2st.cli.input_spec_syntax`: "x:float32[None,784]" -> InputSpec, and its error messages."""
import pytest

from dy2st.cli.input_spec_syntax import InputSpecSyntaxError, format_input_spec, parse_input_spec


@pytest.mark.parametrize("text, name, shape, dtype", [
    ("x:float32[None,784]", "x", (-1, 784), "float32"),
    ("img:float32[None, 1, 28, 28]", "img", (-1, 1, 28, 28), "float32"),
    (" y : int64 [ -1 , 3 ] ", "y", (-1, 3), "int64"),
    ("ids:int32[?]", "ids", (-1,), "int32"),
    ("float64[2,3]", None, (2, 3), "float64"),
    ("flag:bool[]", "flag", (), "bool"),
])
def test_parse(text, name, shape, dtype):
    spec = parse_input_spec(text)
    assert (spec.name, spec.shape, spec.dtype.name) == (name, shape, dtype)
    again = parse_input_spec(format_input_spec(spec))
    assert (again.name, again.shape, again.dtype) == (spec.name, spec.shape, spec.dtype)


@pytest.mark.parametrize("text, why", [
    ("x:float32[None,abc]", "dimension 'abc' is not a non-negative integer or None"),
    ("x:float32[-2]", "dimension '-2'"),
    ("x:flot32[None,784]", "unknown dtype 'flot32'"),
    ("x:float32", "the shape is missing after 'float32'"),
    ("x:[3]", "the dtype is missing"),
    (":float32[3]", "the input name before ':' is empty"),
    ("x-y:float32[3]", "input name 'x-y' is not an identifier"),
    ("x:float32[3,]", "empty dimension"),
    ("x:float32[3", "must be one [...] list"),
    ("x:float32(3)", "square brackets"),
    ("", "it is empty"),
])
def test_errors_quote_the_text_and_the_expected_form(text, why):
    with pytest.raises(InputSpecSyntaxError) as info:
        parse_input_spec(text)
    msg = str(info.value)
    assert msg.startswith(f"bad input spec '{text}': ") and why in msg
    assert msg.endswith("expected NAME:DTYPE[DIM,...] (DIM an int or None), e.g. x:float32[None,784]")
    assert "\n" not in msg
