"""The local summariser's parts: sentence splitting, sentence clean-up, what later statements
override, the budgeted choice of statements and the summary's line format. Each is a pure
function of its inputs (no I/O, no model), linear in the length of its text."""
