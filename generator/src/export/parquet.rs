//! The Parquet sink of an export (cargo feature `parquet`): the `parquet`
//! crate's column writers, without Arrow (measured: Arrow's crates would
//! add more to a cold build than the writer itself, for nothing an export
//! needs).

use std::io::Write;
use std::sync::Arc;

use anyhow::{Context, Result};
use parquet::basic::{Compression, ZstdLevel};
use parquet::data_type::{BoolType, ByteArray, ByteArrayType, Int32Type};
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;
use solvedb_lookup::GameId;

use super::{Column, ExportOptions, Kind, Sink, Values};

/// The schema of `columns` in Parquet's message syntax.
fn message(game: GameId, columns: &[Column]) -> String {
    let mut text = format!(
        "message solvedb_{} {{\n",
        game.to_string().replace(':', "_")
    );
    for c in columns {
        let repetition = if c.optional { "OPTIONAL" } else { "REQUIRED" };
        let physical = match c.kind {
            Kind::Text => "BYTE_ARRAY",
            Kind::U64 => "INT64",
            Kind::U8 | Kind::I8 => "INT32",
            Kind::Bool => "BOOLEAN",
        };
        let logical = match c.kind {
            Kind::Text => " (STRING)",
            Kind::U64 => " (INTEGER(64,false))",
            Kind::U8 => " (INTEGER(8,false))",
            Kind::I8 => " (INTEGER(8,true))",
            Kind::Bool => "",
        };
        text.push_str(&format!("  {repetition} {physical} {}{logical};\n", c.name));
    }
    text.push('}');
    text
}

/// Writes row groups into a Parquet file.
pub(super) struct ParquetSink<W: Write + Send> {
    writer: SerializedFileWriter<W>,
}

impl<W: Write + Send> ParquetSink<W> {
    pub(super) fn new(
        out: W,
        game: GameId,
        columns: &[Column],
        options: &ExportOptions,
    ) -> Result<ParquetSink<W>> {
        let schema = Arc::new(parse_message_type(&message(game, columns)).context("the schema")?);
        let metadata = vec![
            KeyValue::new("solvedb.game".into(), game.to_string()),
            KeyValue::new(
                "solvedb.schema".into(),
                "one row per position; values from the side to move, each move's from its \
                 mover before the move; move columns m{i}_* by cell or edge index, empty where \
                 the move is not legal (docs/datasets.md)"
                    .to_owned(),
            ),
            KeyValue::new(
                "solvedb.rows".into(),
                if options.all_symmetries {
                    "every symmetric image"
                } else {
                    "canonical"
                }
                .to_owned(),
            ),
        ];
        let properties = WriterProperties::builder()
            .set_compression(Compression::ZSTD(ZstdLevel::try_new(3)?))
            .set_created_by(format!("solvedb {}", env!("CARGO_PKG_VERSION")))
            .set_key_value_metadata(Some(metadata))
            .build();
        let writer = SerializedFileWriter::new(out, schema, Arc::new(properties))?;
        Ok(ParquetSink { writer })
    }
}

impl<W: Write + Send> Sink for ParquetSink<W> {
    fn write_group(&mut self, _rows: usize, values: &[Values]) -> Result<()> {
        let mut group = self.writer.next_row_group()?;
        for column in values {
            let mut writer = group
                .next_column()?
                .context("the schema has a column for every value")?;
            match column {
                Values::Text(v) => {
                    let bytes: Vec<ByteArray> =
                        v.iter().map(|s| ByteArray::from(s.as_str())).collect();
                    writer
                        .typed::<ByteArrayType>()
                        .write_batch(&bytes, None, None)?;
                }
                Values::Bool(v) => {
                    writer.typed::<BoolType>().write_batch(v, None, None)?;
                }
                Values::Int(v) => write_ints(&mut writer, v, None)?,
                Values::Optional { values, present } => {
                    let levels: Vec<i16> = present.iter().map(|&p| i16::from(p)).collect();
                    write_ints(&mut writer, values, Some(&levels))?;
                }
            }
            writer.close()?;
        }
        group.close()?;
        Ok(())
    }

    fn finish(self: Box<Self>) -> Result<()> {
        self.writer.close()?;
        Ok(())
    }
}

/// Integers into an INT64 or INT32 column, whichever it is.
fn write_ints(
    writer: &mut parquet::file::writer::SerializedColumnWriter<'_>,
    values: &[i64],
    levels: Option<&[i16]>,
) -> Result<()> {
    match writer.untyped() {
        parquet::column::writer::ColumnWriter::Int64ColumnWriter(w) => {
            w.write_batch(values, levels, None)?;
        }
        _ => {
            let narrow: Vec<i32> = values.iter().map(|&v| v as i32).collect();
            writer
                .typed::<Int32Type>()
                .write_batch(&narrow, levels, None)?;
        }
    }
    Ok(())
}
