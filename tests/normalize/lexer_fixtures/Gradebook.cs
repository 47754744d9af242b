// Gradebook.cs -- grades per student and course, with a CSV import.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;

namespace Course.Lab4
{
    /// <summary>A mark out of 100; "A" is 90 or more.</summary>
    public readonly record struct Mark(string Course, double Score);

    public class Gradebook
    {
        private const double PassMark = 50.0;
        private const decimal Fee = 12.50m;
        private const float Weight = 0.5f;
        private const ulong Big = 10UL;
        private const int Mask = 0x1F;
        private const long Many = 1_000_000L;
        private const char Separator = ',';
        private const char Quote = '\'';
        private static readonly string DataDir = @"C:\course\data\";
        private static readonly string Banner = @"Gradebook ""2024""
  two lines, verbatim";

        private readonly Dictionary<string, List<Mark>> marks = new();

        #region Import
        public int Import(string path)
        {
            int count = 0;
            foreach (var line in File.ReadLines(Path.Combine(DataDir, path)))
            {
                if (string.IsNullOrWhiteSpace(line) || line.StartsWith("#")) continue;
                var parts = line.Split(Separator);
                if (parts.Length != 3)
                    throw new FormatException($"bad line: \"{line}\"");
                Add(parts[0].Trim(), new Mark(parts[1].Trim(), double.Parse(parts[2])));
                count++;
            }
            return count;
        }
        #endregion

        public void Add(string student, Mark mark)
        {
            if (!marks.TryGetValue(student, out var list))
            {
                list = new List<Mark>();
                marks[student] = list;
            }
            list.Add(mark);
        }

        public double Average(string student) =>
            marks.TryGetValue(student, out var list) && list.Count > 0 ? list.Average(m => m.Score) : 0.0;

        public static string Letter(double score) => score switch
        {
            >= 90 => "A",
            >= 80 => "B",
            >= 70 => "C",
            >= PassMark => "D",
            _ => "F",
        };

        public IEnumerable<string> Report()
        {
            foreach (var (student, list) in marks.OrderBy(kv => kv.Key))
            {
                double avg = Average(student);
                yield return $"{student,-12} {avg,6:F1} {Letter(avg)} ({list.Count} marks)";
            }
        }

        public override string ToString() =>
            $@"{Banner} in {DataDir}: {marks.Count} students" + Quote + Fee * 2 + Weight;

        public static int Main(string[] args)
        {
            var book = new Gradebook();
            try
            {
                int n = book.Import(args.Length > 0 ? args[0] : "marks.csv");
                Console.WriteLine($"imported {n} marks // not a comment");
            }
            catch (IOException e) when (e is FileNotFoundException)
            {
                Console.Error.WriteLine("no such file: " + e.Message);
                return 1;
            }
            foreach (var line in book.Report()) Console.WriteLine(line);
            Console.WriteLine(book?.ToString() ?? "empty");
            Console.WriteLine(Big + Mask + Many);
            return 0;
        }
    }
}
