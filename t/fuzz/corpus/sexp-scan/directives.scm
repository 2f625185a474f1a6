#!curly-infix
{a + b}
#!r6rs [c]
