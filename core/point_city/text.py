"""stub"""
def describe(e, players): return repr(e)
def render(s, seat): return ""
def parse_command(s, seat, t): raise NotImplementedError
def format_command(c): return repr(c)
def explain(b, e, p): return repr(e)
