use super::*;

#[test]
fn sizes_parse_as_bonnie_pp_does() {
    assert_eq!(size_from_str("300", "gt"), Ok(300));
    assert_eq!(size_from_str("2g", "gt"), Ok(2048));
    assert_eq!(size_from_str("1T", "gt"), Ok(1 << 20));
    assert_eq!(size_from_str("8k", "km"), Ok(8192));
    assert!(size_from_str("8x", "km").is_err());
    assert!(size_from_str("", "km").is_err());
    assert!(size_from_str("-1", "km").is_err());
}

#[test]
fn the_size_spec_has_four_parts() {
    let spec = |size, chunk, seeks, seekers| {
        Ok(SizeSpec {
            size,
            chunk,
            seeks,
            seekers,
        })
    };
    assert_eq!(parse_size_spec("100"), spec(100, None, None, None));
    assert_eq!(
        parse_size_spec("1g:16k:4000:3"),
        spec(1024, Some(16384), Some(4000), Some(3))
    );
    assert_eq!(parse_size_spec("64::100"), spec(64, None, Some(100), None));
    for bad in [
        "64:100",
        "64:3m",
        "64:8k:0",
        "64:8k:10:0",
        "64:8k:1:2:3",
        "x",
    ] {
        assert!(parse_size_spec(bad).is_err(), "{bad}");
    }
}

#[test]
fn file_tests_parse_and_refuse_what_bonnie_pp_refuses() {
    assert_eq!(parse_file_tests("0"), Ok(None));
    assert_eq!(
        parse_file_tests("16"),
        Ok(Some(FileTests {
            num: 16,
            max: 0,
            min: 0,
            dirs: 1,
            chunk: 8192
        }))
    );
    let f = parse_file_tests("1:4k:1k:8:4096").unwrap().unwrap();
    assert_eq!(
        (f.num, f.max, f.min, f.dirs, f.chunk),
        (1, 4096, 1024, 8, 4096)
    );
    assert_eq!(parse_file_tests("2:-1").unwrap().unwrap().max, -1);
    assert_eq!(parse_file_tests("2:-2").unwrap().unwrap().max, -2);
    // max below min, a chunk of 5 bytes, six parts, too many files
    for bad in [
        "1:2:3:4:5",
        "1:2:3",
        "1:10:0:1:5",
        "1:2:3:4:5:6",
        "2000000",
        "1:-1:5",
        "x",
    ] {
        assert!(parse_file_tests(bad).is_err(), "{bad}");
    }
    let e = parse_file_tests("1:2:3:4:5").unwrap_err();
    assert!(e.contains("smaller than the min"), "{e}");
}

#[test]
fn default_size_is_twice_ram_rounded_to_a_gib() {
    assert_eq!(default_size_mib(0), 300);
    assert_eq!(default_size_mib(100), 300);
    assert_eq!(default_size_mib(1000), 2048);
    assert_eq!(default_size_mib(24106), 48212);
    assert_eq!(default_size_mib(24400), 49152);
    assert_eq!(default_size_mib(700), 1400);
}

#[test]
fn bonnie_pp_refuses_a_file_smaller_than_twice_ram() {
    let mut o = Options::new(Flavor::BonniePlusPlus, Path::new("."), 512);
    o.size_mib = 100;
    let e = o.check().unwrap_err();
    assert!(e.starts_with("File size should be double RAM"), "{e}");
    o.ram_mib = 0;
    assert!(o.check().is_ok());
    // the original Bonnie has no such rule
    let mut c = Options::new(Flavor::Bonnie, Path::new("."), 512);
    c.size_mib = 100;
    assert!(c.check().is_ok());
}

#[test]
fn tests_run_in_each_flavours_order() {
    let mut o = Options::new(Flavor::Bonnie, Path::new("."), 0);
    assert_eq!(
        o.tests(),
        [
            Test::Putc,
            Test::Rewrite,
            Test::PutBlock,
            Test::Getc,
            Test::GetBlock,
            Test::Seeks
        ]
    );
    o = Options::new(Flavor::BonniePlusPlus, Path::new("."), 0);
    o.files = parse_file_tests("1").unwrap();
    assert_eq!(o.tests()[..3], [Test::Putc, Test::PutBlock, Test::Rewrite]);
    assert_eq!(o.tests().len(), 12);
    o.byte_io_mib = 0;
    assert!(!o.tests().contains(&Test::Putc));
    o.size_mib = 0;
    assert_eq!(o.tests(), Test::ALL[6..]);
}

#[test]
fn bonnie_rounds_the_file_down_to_whole_chunks() {
    let mut o = Options::new(Flavor::Bonnie, Path::new("."), 0);
    o.size_mib = 1;
    o.chunk = 16384;
    assert_eq!(o.file_bytes(), MIB);
    assert_eq!(o.chunks(), 64);
    assert_eq!(o.byte_io_bytes(), MIB);
    let mut p = Options::new(Flavor::BonniePlusPlus, Path::new("."), 0);
    p.size_mib = 2;
    assert_eq!(p.byte_io_bytes(), 2 * MIB);
    p.size_mib = 10;
    assert_eq!(p.byte_io_bytes(), 3 * MIB);
}

#[test]
fn the_rand_of_a_file_cycles_through_its_numbers() {
    let seed = Seed::File {
        path: "x".into(),
        values: vec![5, 7],
    };
    let mut r = Rand::new(&seed);
    assert_eq!([r.num(), r.num(), r.num()], [5, 7, 5]);
    let n = Seed::Num(1);
    assert_eq!(Rand::new(&n).num(), BsdRandom::new(1).next());
}
