using System.CommandLine;
using System.CommandLine.Parsing;

namespace RapidFix.CommandLine;

/// <summary>
/// Checks of option values shared by the samples and tools (linked into each): a value of the right type but out of
/// range gets its own message; a value that is not even of the option's type already has System.CommandLine's.
/// </summary>
internal static class OptionChecks
{
    /// <summary>Adds a check that <paramref name="option"/>, when given, is at least <paramref name="minimum"/>.</summary>
    public static Option<int> AtLeast(this Option<int> option, int minimum) =>
        option.Check(value => value >= minimum, $"{option.Name} must be at least {minimum}");

    /// <summary>Adds a check that <paramref name="option"/>, when given, is a positive number.</summary>
    public static Option<double> Positive(this Option<double> option) =>
        option.Check(value => value > 0, $"{option.Name} must be a positive number");

    /// <summary>Adds a check of <paramref name="option"/>'s value; <paramref name="error"/> when it fails.</summary>
    public static Option<T> Check<T>(this Option<T> option, Func<T, bool> isValid, string error)
    {
        option.Validators.Add(r =>
        {
            if (TryGetValue(r, out T value) && !isValid(value))
            {
                r.AddError(error);
            }
        });
        return option;
    }

    /// <summary>Adds a check that <paramref name="argument"/> is not an option this program does not know.</summary>
    public static Argument<T> NotAnOption<T>(this Argument<T> argument)
    {
        argument.Validators.Add(r =>
        {
            foreach (var token in r.Tokens)
            {
                if (token.Value.StartsWith('-'))
                {
                    r.AddError($"unknown option '{token.Value}'");
                }
            }
        });
        return argument;
    }

    /// <summary>The option's value; false when its text does not convert (System.CommandLine reports that itself).</summary>
    private static bool TryGetValue<T>(OptionResult result, out T value)
    {
        try
        {
            value = result.GetValueOrDefault<T>()!;
            return true;
        }
        catch (InvalidOperationException)
        {
            // Conversion failed: startup code, and System.CommandLine offers no non-throwing read of a validated value.
            value = default!;
            return false;
        }
    }
}
