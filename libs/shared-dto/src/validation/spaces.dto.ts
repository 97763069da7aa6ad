import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsDefined,
  IsNotIn,
  IsOptional,
  IsString,
  Length,
  Matches,
  registerDecorator,
} from 'class-validator';
import {
  SPACE_EDIT_PROMPT_RANGE,
  SPACE_GENERATE_PROMPT_RANGE,
  SPACE_HANDLE_HYPHENS,
  SPACE_HANDLE_HYPHENS_PROBLEM,
  SPACE_HANDLE_PATTERN,
  SPACE_HANDLE_RANGE,
  SPACE_MAX_MODELS,
  SPACE_RESERVED_HANDLES,
  SPACE_SLUG_PATTERN,
  SPACE_TITLE_MAX_LENGTH,
  type SpaceEditRequest,
  type SpaceRenameRequest,
  type SpaceGenerateRequest,
  type SpaceHandleCheckQuery,
  type SpaceHandleSetRequest,
  type SpacePublishRequest,
  type SpaceRemixRequest,
} from '../spaces';

const trim = () => Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value));

const handleForm = () => (target: object, property: string) => {
  IsString()(target, property);
  Length(SPACE_HANDLE_RANGE[0], SPACE_HANDLE_RANGE[1], {
    message: `handle must be ${SPACE_HANDLE_RANGE[0]}-${SPACE_HANDLE_RANGE[1]} characters`,
  })(target, property);
  Matches(SPACE_HANDLE_PATTERN, {
    message: 'handle may hold lowercase letters, digits, "_" and "-", and must start and end with a letter or digit',
  })(target, property);
  registerDecorator({
    name: 'isNotPunycodeHandle',
    target: target.constructor,
    propertyName: property,
    validator: {
      validate: (value: unknown) => typeof value !== 'string' || !SPACE_HANDLE_HYPHENS.test(value),
      defaultMessage: () => `handle ${SPACE_HANDLE_HYPHENS_PROBLEM}`,
    },
  });
};

/** PUT /api/v1/spaces/handle */
export class SpaceHandleSetDto implements SpaceHandleSetRequest {
  @handleForm()
  @IsNotIn(SPACE_RESERVED_HANDLES, { message: 'handle is a reserved word; choose another' })
  handle: string;
}

/** GET /api/v1/spaces/handle/check?handle= (a reserved word is a well-formed handle that is not available). */
export class SpaceHandleCheckQueryDto implements SpaceHandleCheckQuery {
  @handleForm()
  handle: string;
}

/** POST /api/v1/spaces/generate */
/** An app's title: trimmed, 1–100 characters, no control characters (it is shown in pages and lists). */
const IsAppTitle = () => (target: object, property: string) => {
  trim()(target, property);
  IsString()(target, property);
  Length(1, SPACE_TITLE_MAX_LENGTH, { message: `title must be 1-${SPACE_TITLE_MAX_LENGTH} characters` })(
    target,
    property,
  );
  Matches(/^[^\p{Cc}\p{Cf}]*$/u, { message: 'title must not contain control or invisible characters' })(
    target,
    property,
  );
};

export class SpaceGenerateDto implements SpaceGenerateRequest {
  @trim()
  @IsString()
  @Length(SPACE_GENERATE_PROMPT_RANGE[0], SPACE_GENERATE_PROMPT_RANGE[1], {
    message: `prompt must be ${SPACE_GENERATE_PROMPT_RANGE[0]}-${SPACE_GENERATE_PROMPT_RANGE[1]} characters`,
  })
  prompt: string;

  @IsOptional()
  @IsAppTitle()
  title?: string;

  /** Model ids to try in order until one writes a page; the default is the catalog's first chat model. */
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(SPACE_MAX_MODELS)
  @ArrayUnique()
  @IsString({ each: true })
  @Length(1, 200, { each: true, message: 'each model id must be 1-200 characters' })
  models?: string[];
}

/** PUT /api/v1/spaces/{slug}/edit */
export class SpaceRenameDto implements SpaceRenameRequest {
  @IsAppTitle()
  title: string;
}

export class SpaceEditDto implements SpaceEditRequest {
  @trim()
  @IsString()
  @Length(SPACE_EDIT_PROMPT_RANGE[0], SPACE_EDIT_PROMPT_RANGE[1], {
    message: `prompt must be ${SPACE_EDIT_PROMPT_RANGE[0]}-${SPACE_EDIT_PROMPT_RANGE[1]} characters`,
  })
  prompt: string;
}

/** PUT /api/v1/spaces/{slug}/publish */
export class SpacePublishDto implements SpacePublishRequest {
  @IsDefined()
  @IsBoolean()
  published: boolean;
}

/** POST /api/v1/spaces/remix */
export class SpaceRemixDto implements SpaceRemixRequest {
  @handleForm()
  handle: string;

  @IsString()
  @Length(1, 100)
  @Matches(SPACE_SLUG_PATTERN, { message: 'slug must be an app slug such as haiku-generator' })
  slug: string;
}
