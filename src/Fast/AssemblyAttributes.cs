// Hot paths declare many struct locals; zero-initialising the non-reference ones on every call is wasted work.
[module: System.Runtime.CompilerServices.SkipLocalsInit]
